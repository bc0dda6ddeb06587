// Package bleve is the search index of the embedded default: bleve v2
// (github.com/blevesearch/bleve/v2, scorch) on disk in the data directory. The directory holds
// one bleve index per generation and a file "current" naming the live one, so Rebuild can fill
// a new generation and swap it in, as the OpenSearch alias does. Only one process may open
// the directory at a time (bleve holds a file lock); deployments with several SYNC workers use
// OpenSearch. Apply returns once bleve has persisted the batch (scorch's default; its
// unsafe_batch mode was measured faster but loses the last batches even on a clean Close).
//
// # Indexing cost
//
// Each Apply becomes one scorch segment, persisted as one file before Apply returns; a
// background merger then merges the files by a tiered plan. SYNC's concurrent handlers make
// batches of about 16 documents (one per handler waiting), so the index gets many tiny
// segments. With scorch's default merge plan (FloorSegmentSize 2,000) every segment under
// 2,000 documents sits in the first tier, and the merger merged the small segments together
// again at almost every batch: in a harvest it took about half of the harvester's CPU. Every
// generation therefore runs with FloorSegmentSize 50 (settings), which keeps the tiers a
// factor of ten apart from 50 documents up.
//
// BenchmarkIndex measures it: 10,000 corpus documents through a search.Batcher from 16
// writers, CPU time of the whole process until the merger and persister are idle, on a busy
// 2-core machine (figures vary by about 15% between runs):
//
//	                        cpu-ms/doc   merged MB   segments   text query CPU
//	scorch defaults         0.85–1.31    280–350     2–5        6.6–8.3 ms
//	FloorSegmentSize 50     0.35–0.52    31–32       14–21      6.9–10.6 ms
//	FloorSegmentSize 16     0.42–0.55    29–32       10–26      7.1–10.6 ms
//	FloorSegmentSize 100    0.36–0.52    40–41       15–19      6.9–9.4 ms
//	50, 5 segments a tier   0.42–0.59    54–56       9–12       7.8–8.4 ms
//
// At 30,000 documents: defaults 0.79, FloorSegmentSize 50 0.57 cpu-ms/doc (600 against 130
// MB merged). The price is more segments, so a query visits more of them: the text query costs
// up to about 30% more CPU (runs overlap), the filtered query (2.1–3.3 ms either way) and the
// first page with facets (9.4–13 ms) up to about 20% more; their cost is mostly per hit
// (facets and the id tie-break read the doc values of every hit), not per segment. Floors from
// 16 to 100 cost the same within the noise.
//
// What remains is spread over building each batch's segment, persisting it (a bolt commit and
// two fsyncs per batch) and the usual tiered merging, so the next lever is batch size, not a
// setting here: at 5,000 documents and FloorSegmentSize 16, 64 writers (batches of about 64)
// cost 0.32 cpu-ms/doc and 256 writers 0.24, against 0.56 with 16 (and 1.5 with 4). Two Apply
// calls at once (a Batcher with two commits) made smaller batches and cost more.
//
// Only the fields that queries sort, facet or filter by doc values (id, organization, keyword,
// bbox) keep them, and the dates and the bounding box are indexed but not stored: about 13%
// fewer bytes merged. The bounding box (then a geoshape, now four numbers) is on 13% of the corpus's records and did not show in the
// profiles. Not storing the DCAT record would halve the bytes merged for about 3% of CPU; it
// stays stored.
package bleve
