// Score-only play: the number pads with which a real-card table enters a deal's (heat's, game's)
// result instead of playing card by card, for every game (the API's `tally` action). Plain ES
// module, used by app.js.
export {};
