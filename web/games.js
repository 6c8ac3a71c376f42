// The games in words and pictures: how the table page draws Members Only, P.M. and By Hook or
// Crook (their boards, pieces and cards) and tells their actions in words. Plain ES module, used
// by app.js.
export {};
