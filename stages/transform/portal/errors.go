package portal

import "errors"

// ErrNotDataset is the error of an item that is not a dataset of its own (a Socrata view
// derived from another dataset).
var ErrNotDataset = errors.New("the portal item is not a dataset of its own")
