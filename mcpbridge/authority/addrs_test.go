package authority

// Addresses the package's tests share: any valid keys will do.
const (
	addrA = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
	addrB = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	wSOL  = "So11111111111111111111111111111111111111112"
)
