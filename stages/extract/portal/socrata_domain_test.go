package portal

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// TestSocrataForeignDomainRowsNameTheirView (issue 34 item 17): the corpus's real Discovery
// API answer, of results from five domains, served for a source of the domain
// opendata.howardcountymd.gov: its three views are records keyed under it; each of the other
// four is a ForeignDomain error row that names the view by its own domain's identifier (it
// named none), and is neither keyed nor seen under this source, on both backends.
func TestSocrataForeignDomainRowsNameTheirView(t *testing.T) {
	t.Parallel()
	body := bytes.Replace(corpusBytes(t, "socrata/discovery-api-catalog-v1-datasets.json"),
		[]byte(`"resultSetSize" : 150680`), []byte(`"resultSetSize" : 7`), 1)
	backends := map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store { return openSQLite(t) },
		"postgres": func(t *testing.T) store.Store {
			st, err := postgres.Open(context.Background(), dbtest.URL(t))
			require.NoError(t, err)
			t.Cleanup(st.Close)
			require.NoError(t, st.Migrate(context.Background()))
			return st
		},
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Query().Get("offset") != "0" { // the page after the last: none
					_, _ = w.Write([]byte(`{"resultSetSize": 7, "results": []}`))
					return
				}
				_, _ = w.Write(body)
			}))
			t.Cleanup(srv.Close)
			const domain = "opendata.howardcountymd.gov"
			r := runPortal(t, open(t), harvest.SourceSocrata, srv.URL, map[string]string{"domain": domain, "limit": "10"},
				nil, testPortalFetch())
			require.NoError(t, r.err)
			require.Empty(t, r.jobErrors(t))
			require.Equal(t, []string{SocrataIdentifier(domain, "qccx-65fg"), SocrataIdentifier(domain, "kvz2-j5cj"),
				SocrataIdentifier(domain, "xvpn-2pnt")}, identifiers(r.records(t)), "in listing order")
			var foreign []string
			for _, s := range r.settled(t) {
				require.Equal(t, "ForeignDomain", s.Errors[0].Type, "%+v", s)
				foreign = append(foreign, s.Identifier)
			}
			sort.Strings(foreign)
			require.Equal(t, []string{"https://data.cityofboston.gov/d/msk6-43c6", "https://data.cityofnewyork.us/d/ic3t-wcy2",
				"https://data.cms.gov/d/qcn7-gc3g", "https://data.ny.gov/d/kwxv-fwze"}, foreign)
			require.Equal(t, 7, r.listed(t))
		})
	}
}
