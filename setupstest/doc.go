// Package setupstest holds tests only: they run Harvester as each supported setup runs it and
// hold the setups to one behaviour. The embedded default (SQLite, an in-process NATS server
// in the data directory, bleve) and the production setup (Postgres, a nats-server process,
// OpenSearch) harvest the corpus's example catalogs and must leave the same counts, error rows,
// datasets and index documents (corpus_test.go); and the processes deploy/compose.yaml starts,
// started at once as plain processes on the real services with an empty OpenSearch, harvest a
// catalog to exact counts with every dataset searchable (compose_test.go).
//
// They need Postgres (HARVESTER_TEST_DATABASE_URL), the OpenSearch node
// (HARVESTER_TEST_OPENSEARCH_URL) and nats-server on PATH, as scripts/test.sh provides: without
// them the tests skip, and in CI (HARVESTER_TEST_REQUIRE_POSTGRES,
// HARVESTER_TEST_REQUIRE_OPENSEARCH) they fail.
package setupstest
