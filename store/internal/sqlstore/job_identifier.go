package sqlstore

import (
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

// DistinctClaims splits a store.JobIdentifierClaimBatchParams's identifiers into the distinct
// ones, each with the position of its first occurrence in the call (what the backends write),
// and the repeats within the call, each mapped to that first position (part of
// JobIdentifierClaimBatch's answer). It refuses positions that are not one per identifier.
func DistinctClaims(p *store.JobIdentifierClaimBatchParams) (ids []string, positions []int, repeats map[string]int, err error) {
	if len(p.Positions) != len(p.Identifiers) {
		return nil, nil, nil, fmt.Errorf("claim identifiers: %d identifiers and %d positions, want one position each",
			len(p.Identifiers), len(p.Positions))
	}
	first := make(map[string]int, len(p.Identifiers))
	repeats = map[string]int{}
	ids, positions = make([]string, 0, len(p.Identifiers)), make([]int, 0, len(p.Identifiers))
	for i, id := range p.Identifiers {
		if pos, ok := first[id]; ok {
			repeats[id] = pos
			continue
		}
		first[id] = p.Positions[i]
		ids, positions = append(ids, id), append(positions, p.Positions[i])
	}
	return ids, positions, repeats, nil
}
