package extract

// Constants the external tests of the core (package extract_test) check against.
const (
	GiveWayDivisor = giveWayDivisor
	SeenBatch      = seenBatch
)
