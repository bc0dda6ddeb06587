package quality_test

import (
	"encoding/json"
	"fmt"

	"github.com/harvester-dev/harvester/quality"
)

func ExampleAssess() {
	record := json.RawMessage(`{
	  "keyword": ["water"], "accessLevel": "public",
	  "license": "https://creativecommons.org/licenses/by/4.0/",
	  "distribution": [{"downloadURL": "https://example.gov/a.csv", "mediaType": "text/csv"}]
	}`)
	s := quality.Assess(quality.Input{DCAT: record, Links: map[string]quality.LinkResult{
		"https://example.gov/a.csv": quality.LinkResultOf(200),
	}})
	fmt.Printf("%.0f of %d: %s\n", s.Points, s.Max, s.Rating)
	for _, is := range s.Indicators {
		if is.Points > 0 {
			fmt.Printf("%s %.0f/%d\n", is.Metric, is.Points, is.Max)
		}
	}
	// Output:
	// 265 of 405: Good
	// pv:keywordAvailability 30/30
	// pv:accessUrlStatusCode 50/50
	// pv:downloadUrlAvailability 20/20
	// pv:downloadUrlStatusCode 30/30
	// pv:mediaTypeAvailability 10/10
	// pv:formatMediaTypeVocabularyAlignment 10/10
	// pv:formatMediaTypeNonProprietary 20/20
	// pv:formatMediaTypeMachineInterpretable 20/20
	// pv:dcatApCompliance 30/30
	// pv:licenceAvailability 20/20
	// pv:knownLicence 10/10
	// pv:accessRightsAvailability 10/10
	// pv:accessRightsVocabularyAlignment 5/5
}

func ExampleLinkURLs() {
	fmt.Println(quality.LinkURLs([]byte(`{"distribution": [
		{"accessURL": " https://example.gov/data ", "downloadURL": "https://example.gov/data.csv"},
		{"downloadURL": "https://example.gov/data.csv"}]}`)))
	// Output: [https://example.gov/data https://example.gov/data.csv]
}
