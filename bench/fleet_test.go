package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

func TestParseScenarios(t *testing.T) {
	got, err := parseScenarios("fleet")
	require.NoError(t, err)
	require.Equal(t, []string{"fleet"}, got)
	got, err = parseScenarios(" first_harvest,reharvest ,small_sources")
	require.NoError(t, err)
	require.Equal(t, []string{"first_harvest", "reharvest", "small_sources"}, got)
	_, err = parseScenarios("reharvest")
	require.ErrorContains(t, err, "add first_harvest")
	_, err = parseScenarios("fleat")
	require.ErrorContains(t, err, `unknown scenario "fleat"`)
	_, err = parseScenarios(",")
	require.Error(t, err)
}

// The fleet's sizes are the at 100,000 records and scale down for the smoke run.
func TestFleetSizesScaleWithRecords(t *testing.T) {
	f := fleetOptions{sources: 200, smallSources: 50}.withDefaults(100_000)
	require.Equal(t, fleetOptions{sources: 200, bigRecords: 50_000, smallRecords: 250, smallSources: 50,
		smallSourceRecords: 200}, f)
	f = fleetOptions{sources: 200, smallSources: 50}.withDefaults(1000)
	require.Equal(t, 500, f.records(0))
	require.Equal(t, 2, f.records(1))
	require.Equal(t, 2, f.smallSourceRecords)
}

func TestDistribution(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 20; i++ {
		ds = append(ds, time.Duration(21-i)*time.Second) // unsorted
	}
	require.Equal(t, &distribution{P50: 10, P95: 19, Max: 20}, distributionOf(ds))
	require.Nil(t, distributionOf(nil))
}

// Two sources' catalogs are disjoint ranges of the synthetic catalog: no identifier or title
// repeats across them.
func TestFleetCatalogsAreDisjoint(t *testing.T) {
	templates, err := loadTemplates(corpustest.Dir(t))
	require.NoError(t, err)
	ids, titles := map[string]bool{}, map[string]bool{}
	for _, from := range []int{0, 7} {
		var buf bytes.Buffer
		require.NoError(t, writeCatalogFrom(&buf, templates, from, 7, false, nil))
		var cat struct {
			Dataset []struct{ Identifier, Title string } `json:"dataset"`
		}
		require.NoError(t, json.Unmarshal(buf.Bytes(), &cat))
		require.Len(t, cat.Dataset, 7)
		for _, d := range cat.Dataset {
			require.False(t, ids[d.Identifier] || titles[d.Title], "%+v repeats", d)
			ids[d.Identifier], titles[d.Title] = true, true
		}
	}
	require.True(t, ids[benchIdentifier(13)])
}
