package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// The /validate texts name every XML schema type a source may have among those refused
// (validating XML there is not supported yet: a 422).
func TestOpenAPIValidateNamesRefusedXMLTypes(t *testing.T) {
	doc := loadOpenAPI(t)
	op := doc["paths"].(map[string]any)["/api/v1/validate"].(map[string]any)["post"].(map[string]any)
	input := doc["components"].(map[string]any)["schemas"].(map[string]any)["ValidateInput"].(map[string]any)
	st := input["properties"].(map[string]any)["schema_type"].(map[string]any)
	for _, s := range []harvest.SchemaType{harvest.SchemaISO19115_1, harvest.SchemaISO19115_2, harvest.SchemaFGDC, harvest.SchemaDCATAP} {
		require.Contains(t, op["description"], string(s))
		require.Contains(t, st["description"], string(s))
	}
}
