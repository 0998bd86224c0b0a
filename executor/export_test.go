package executor

// MeasureWallet is measureWallet, for the fuzz target's budget oracle.
var MeasureWallet = measureWallet
