package opensearch

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	osgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// Open connects to the OpenSearch node at url (e.g. http://127.0.0.1:9200; user:password in
// the URL is used for basic auth) and opens alias ("" means DefaultAlias). A missing alias is
// created with its first concrete index, "<alias>-0", in one create request that names the
// alias as the index's write index: processes opening a new alias at once create one index
// between them (the others get resource_already_exists_exception and use it). An existing
// alias must be on exactly one index that is its write index (is_write_index true, or unset on
// an alias of one index, as earlier versions made it); otherwise Open returns an error wrapping
// ErrAlias that names the fix. It fails when the node does not answer within 30 s or refuses the
// mapping.
func Open(ctx context.Context, url, alias string) (*Index, error) {
	return open(ctx, url, alias, true)
}

// OpenToRebuild opens alias as Open does but accepts it on any number of indices, write index
// or not, so that Rebuild can repair it (`harvester reindex` opens the index this way).
// Searches and writes through an alias that Open would refuse may fail until then.
func OpenToRebuild(ctx context.Context, url, alias string) (*Index, error) {
	return open(ctx, url, alias, false)
}

func open(ctx context.Context, url, alias string, strict bool) (*Index, error) {
	if alias == "" {
		alias = DefaultAlias
	}
	client, err := opensearchapi.NewClient(opensearchapi.Config{Client: osgo.Config{
		Addresses: []string{url}, MaxRetries: 3, EnableRetryOnTimeout: true}})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %w", err)
	}
	x := &Index{client: client, alias: alias}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for range 2 { // the second round reads the alias another process created first
		members, err := x.members(ctx)
		if err != nil {
			return nil, fmt.Errorf("opensearch at %s: %w", url, err)
		}
		if members == nil {
			created, err := x.createFirst(ctx)
			if err != nil {
				return nil, err
			}
			if created {
				x.folded.Store(true)
				return x, x.waitShards(ctx)
			}
			continue
		}
		if strict {
			if err := checkMembers(alias, members); err != nil {
				return nil, err
			}
		}
		folded, current, err := x.inspect(ctx)
		if err != nil {
			return nil, err
		}
		x.folded.Store(folded)
		x.outdated.Store(!current)
		return x, x.waitShards(ctx)
	}
	first := firstIndex(alias)
	return nil, fmt.Errorf("opensearch: index %s exists without the alias %s: add it (PUT /%s/_alias/%s) or delete the index",
		first, alias, first, alias)
}

// waitShards waits until the alias's index can answer (its primary shard started: cluster
// health yellow or green for it), up to 25 s: an index another process has just created
// answers a search with 503 "all shards failed" until then, and the caller's first request
// (search.MigrateNeeded's count) would fail the process's start.
// https://opensearch.org/docs/2.19/api-reference/cluster-api/cluster-health/
//
// Health yellow alone was seen not to be enough on OpenSearch 2.19.6 (a search right after it
// still answered 503 once in CI), so it then searches the alias (size 0) until the answer is
// not a 503, every 200 ms, within the same ctx.
func (x *Index) waitShards(ctx context.Context) error {
	status, err := x.do(ctx, http.MethodGet, "/_cluster/health/"+x.alias+"?wait_for_status=yellow&timeout=25s", nil, nil)
	if err = statusErr(status, err); err != nil {
		return fmt.Errorf("opensearch: index %s is not ready (its primary shard did not start): %w", x.alias, err)
	}
	for {
		status, err := x.do(ctx, http.MethodPost, "/"+x.alias+"/_search", map[string]any{"size": 0}, nil)
		if status != http.StatusServiceUnavailable {
			if err = statusErr(status, err); err != nil {
				return fmt.Errorf("opensearch: index %s is not ready: %w", x.alias, err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("opensearch: index %s is not ready (its shards answer 503): %w", x.alias, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// firstIndex is the name of an alias's first concrete index: fixed, so that processes creating
// it at once make one.
func firstIndex(alias string) string { return alias + "-0" }

// createFirst creates the alias's first index with the mapping and the alias, as its write
// index, in one request. It reports false (and no error) when the index exists already:
// another process created it first.
func (x *Index) createFirst(ctx context.Context) (bool, error) {
	name := firstIndex(x.alias)
	body := maps.Clone(mapping)
	body["aliases"] = map[string]any{x.alias: map[string]any{"is_write_index": true}}
	status, err := x.do(ctx, http.MethodPut, "/"+name, body, nil)
	if status == http.StatusBadRequest && err != nil && strings.Contains(err.Error(), "resource_already_exists_exception") {
		return false, nil
	}
	if err = statusErr(status, err); err != nil {
		return false, fmt.Errorf("opensearch: create index %s: %w", name, err)
	}
	return true, nil
}

// members returns the indices the alias is on, each with its is_write_index (nil when unset),
// or nil when the alias does not exist.
func (x *Index) members(ctx context.Context) (map[string]*bool, error) {
	var out map[string]struct {
		Aliases map[string]struct {
			IsWriteIndex *bool `json:"is_write_index"`
		} `json:"aliases"`
	}
	status, err := x.do(ctx, http.MethodGet, "/_alias/"+x.alias, nil, &out)
	if status == http.StatusNotFound {
		return nil, nil
	}
	if err = statusErr(status, err); err != nil {
		return nil, fmt.Errorf("read alias %s: %w", x.alias, err)
	}
	m := map[string]*bool{}
	for idx, a := range out {
		m[idx] = a.Aliases[x.alias].IsWriteIndex
	}
	return m, nil
}

// checkMembers returns an error wrapping ErrAlias, with the way out, unless the alias is on
// one index that is its write index (is_write_index true, or unset).
func checkMembers(alias string, members map[string]*bool) error {
	names := slices.Sorted(maps.Keys(members))
	reindex := "Run `harvester reindex` to build a new index behind the alias from the database"
	if len(names) == 1 {
		if w := members[names[0]]; w == nil || *w {
			return nil
		}
		return fmt.Errorf("%w: alias %s has no write index (is_write_index is false on %s), so every write fails. "+
			"%s, or make %s its write index: POST /_aliases %s", ErrAlias, alias, names[0], reindex, names[0],
			aliasActions(alias, names[0], nil))
	}
	keep := names[len(names)-1] // the newest: concrete names end in their creation time
	for _, n := range names {
		if w := members[n]; w != nil && *w {
			keep = n
		}
	}
	others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == keep })
	return fmt.Errorf("%w: alias %s is on %d indices (%s): writes fail unless one is its write index, and searches "+
		"count a dataset once per index. %s, or keep %s alone: POST /_aliases %s (then delete the indices it left)", ErrAlias,
		alias, len(names), strings.Join(names, ", "), reindex, keep, aliasActions(alias, keep, others))
}

// aliasActions is the _aliases request body that makes keep the alias's write index and takes
// the alias off the others.
func aliasActions(alias, keep string, others []string) string {
	actions := []any{map[string]any{"add": map[string]any{"index": keep, "alias": alias, "is_write_index": true}}}
	for _, o := range others {
		actions = append(actions, map[string]any{"remove": map[string]any{"index": o, "alias": alias}})
	}
	b, _ := json.Marshal(map[string]any{"actions": actions})
	return string(b)
}
