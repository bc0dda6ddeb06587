package rdf

// Graph is a set of triples (adding one twice keeps one). Match calls fn for every triple that
// matches the pattern s, p, o, where a zero Term matches anything; fn's error stops the walk and
// is returned. Implementations: NewMemGraph (in memory) and the spilling graph of NewGraph,
// which moves to a temporary file on disk past a threshold. A Graph is not safe for concurrent
// writes; Match may run while nothing is added.
type Graph interface {
	// Add adds t; an error means the graph could not store it (disk).
	Add(t Triple) error
	// Len is the number of distinct triples.
	Len() int
	// Match walks the triples matching (s, p, o); zero terms are wildcards.
	Match(s, p, o Term, fn func(Triple) error) error
	// Close releases what the graph holds (its temporary file); the graph is unusable after.
	Close() error
}

// MemGraph is a Graph in memory, indexed by subject and by object (the indexes hold
// positions in the triple list, not copies). It costs roughly 500 bytes a triple besides the
// strings: NewGraph's threshold should keep it to tens of thousands of triples.
type MemGraph struct {
	set  map[Triple]struct{}
	byS  map[Term][]int32
	byO  map[Term][]int32
	list []Triple
}

// NewMemGraph returns an empty in-memory graph.
func NewMemGraph() *MemGraph {
	return &MemGraph{set: map[Triple]struct{}{}, byS: map[Term][]int32{}, byO: map[Term][]int32{}}
}

// Add adds t. It never fails.
func (g *MemGraph) Add(t Triple) error {
	if _, ok := g.set[t]; ok {
		return nil
	}
	g.set[t] = struct{}{}
	i := int32(len(g.list))
	g.byS[t.S] = append(g.byS[t.S], i)
	g.byO[t.O] = append(g.byO[t.O], i)
	g.list = append(g.list, t)
	return nil
}

// Len is the number of distinct triples.
func (g *MemGraph) Len() int { return len(g.list) }

// Match walks the triples matching (s, p, o) in the order they were added.
func (g *MemGraph) Match(s, p, o Term, fn func(Triple) error) error {
	match := func(t Triple) error {
		if (s.IsZero() || t.S == s) && (p.IsZero() || t.P == p) && (o.IsZero() || t.O == o) {
			return fn(t)
		}
		return nil
	}
	var index []int32
	switch {
	case !s.IsZero():
		index = g.byS[s]
	case !o.IsZero():
		index = g.byO[o]
	default:
		for _, t := range g.list {
			if err := match(t); err != nil {
				return err
			}
		}
		return nil
	}
	for _, i := range index {
		if err := match(g.list[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close drops the triples.
func (g *MemGraph) Close() error {
	*g = MemGraph{}
	return nil
}
