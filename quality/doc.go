// Package quality scores one dataset record by the Metadata Quality Assessment (MQA) of
// data.europa.eu: five FAIR dimensions, 23 indicators, 405 points, rated Excellent, Good,
// Sufficient or Bad. It is pure: a record, whether it carries validation findings and the
// results of its links' checks go in ([Input]); a [Score] comes out, per dimension and per
// indicator under piveau's metric names (pv:keywordAvailability, …), the names the DCAT-AP feed
// publishes scores under in W3C DQV. It reads no store, fetches nothing and keeps no state, so
// the CHECK stage, SYNC, the API and the tests call it alike.
//
// The method, its vocabularies and its weights are data.europa.eu's, as piveau publishes them
// (../shared/reference/mqa/); docs/quality.md maps each indicator to the DCAT-US fields and
// the DCAT-AP properties it reads. The vocabularies (EU file types, IANA media types, known licences, access rights) are
// compact tables in vocabulary/, generated from the reference files by TestVocabularyCurrent
// (go test ./quality -run TestVocabularyCurrent -update rewrites them) and embedded.
//
// Records are DCAT-US: 1.1 and 3.0 as stored, read loosely (a string where a list belongs, a
// distribution object instead of a list), never failing. A DCAT-AP record is scored on its
// record graph (Input.Graph: the canonical N-Quads EXTRACT stored), on DCAT-AP's own
// properties, with its SHACL findings as the compliance input; both kinds by the one table of
// Indicators, into the one Score.
//
// [Aggregate] folds many scores (a source's, an organization's, the catalog's) into a mean,
// a rating and per-dimension and per-indicator shares.
package quality
