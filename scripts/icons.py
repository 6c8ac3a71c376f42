# Draws the table page's icons (web/icon-192.png, icon-512.png, icon-maskable-512.png: a white
# club on the felt green, as web/icon.svg) as PNG with zlib only. Run once, commit the PNGs:
#   python3 scripts/icons.py web
import zlib, struct, sys
GREEN=(0x0b,0x5d,0x3b); WHITE=(255,255,255); BG=(0xf4,0xf2,0xec)
def club(x,y):
    # unit square coordinates, club centred; returns True if inside the club
    c=[(0.5,0.33,0.155),(0.33,0.56,0.155),(0.67,0.56,0.155),(0.5,0.5,0.1)]
    for cx,cy,r in c:
        if (x-cx)**2+(y-cy)**2<=r*r: return True
    # stem: a triangle widening downwards from (0.5,0.5) to y=0.84
    if 0.5<=y<=0.84:
        half=0.03+(y-0.5)/(0.34)*0.12
        if abs(x-0.5)<=half: return True
    return False
def icon(size, maskable, ss=3):
    rows=[]
    scale = 0.62 if maskable else 0.8   # the club within the safe zone of a maskable icon
    radius = 0.0 if maskable else 0.18
    for py in range(size):
        row=bytearray([0])
        for px in range(size):
            acc=[0,0,0,0]
            for sy in range(ss):
                for sx in range(ss):
                    u=(px+(sx+.5)/ss)/size; v=(py+(sy+.5)/ss)/size
                    # rounded square background
                    dx=max(radius-u,0,u-(1-radius)); dy=max(radius-v,0,v-(1-radius))
                    inside = radius==0 or (dx*dx+dy*dy<=radius*radius)
                    if not inside: continue
                    cu=(u-0.5)/scale+0.5; cv=(v-0.5)/scale+0.5
                    col = WHITE if club(cu,cv) else GREEN
                    acc[0]+=col[0];acc[1]+=col[1];acc[2]+=col[2];acc[3]+=255
            n=ss*ss
            a=acc[3]/n
            if a>0:
                row+=bytes([round(acc[0]/(acc[3]/255)),round(acc[1]/(acc[3]/255)),round(acc[2]/(acc[3]/255)),round(a)])
            else:
                row+=bytes([0,0,0,0])
        rows.append(bytes(row))
    raw=b''.join(rows)
    def chunk(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d)&0xffffffff)
    return b'\x89PNG\r\n\x1a\n'+chunk(b'IHDR',struct.pack('>IIBBBBB',size,size,8,6,0,0,0))+chunk(b'IDAT',zlib.compress(raw,9))+chunk(b'IEND',b'')
out=sys.argv[1]
open(out+'/icon-192.png','wb').write(icon(192,False))
open(out+'/icon-512.png','wb').write(icon(512,False))
open(out+'/icon-maskable-512.png','wb').write(icon(512,True))
