package opensearch

import "errors"

// ErrAlias is returned by Open for an alias that is not on exactly one index that is its write
// index: writes through an alias on several indices fail ("no write index is defined") and its
// searches count every dataset once per index. The error names the way out.
var ErrAlias = errors.New("opensearch: the alias must be on exactly one index, its write index")
