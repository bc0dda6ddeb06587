package jobs

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

// sourceParamsOf is every editable field of src as stored, for a SourceUpdate that changes
// only some of them (SourceUpdate replaces them all: a field left out would be reset).
func sourceParamsOf(src *store.Source) store.SourceInsertParams {
	return store.SourceInsertParams{OrganizationID: src.OrganizationID, Name: src.Name, URL: src.URL,
		SourceType: src.SourceType, SchemaType: src.SchemaType, Frequency: src.Frequency,
		NotificationEmails: src.NotificationEmails, NotificationFrequency: src.NotificationFrequency,
		CollectionParentURL: src.CollectionParentURL, WAFTimeZone: src.WAFTimeZone, Accept: src.Accept,
		AuthHeader: src.AuthHeader, Options: src.Options, Precedence: src.Precedence}
}

// setPrecedence gives src precedence n (already checked: harvest.CheckPrecedence) and returns
// it as stored; src itself when it has n already.
func setPrecedence(ctx context.Context, st store.Store, src *store.Source, n int) (*store.Source, error) {
	if src.Precedence == n {
		return src, nil
	}
	p := sourceParamsOf(src)
	p.Precedence = n
	updated, err := st.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: p})
	if err != nil {
		return nil, fmt.Errorf("set the source's precedence to %d: %w", n, err)
	}
	return updated, nil
}
