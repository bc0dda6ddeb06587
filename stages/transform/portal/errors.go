package portal

import "errors"

// ErrMalformedItem is the error of an item that is not the JSON object its platform serves.
var ErrMalformedItem = errors.New("malformed portal item")

// ErrNotDataset is the error of an item that is not a dataset of its own (a Socrata view
// derived from another dataset, an ArcGIS item that is an application…).
var ErrNotDataset = errors.New("portal item is not a dataset")
