package executor

// TickerSkeleton is tickerSkeleton, for the impostor check's fuzz target.
var TickerSkeleton = tickerSkeleton
