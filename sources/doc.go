// Package sources owns the administration of harvest sources and organizations: creating,
// updating and deleting them with every check (the source rule table through
// store.CheckSource, the auth header and Accept settings, the SSRF guard on source URLs, the
// organization that must exist), a source URL's normal form and "the same catalog" (ByURL),
// the one-shot CLI's find-or-create of a source (Ensure), organizations found or created by name
// (EnsureOrganization), and the search documents written again when a source changes
// organization. The API, the web UI, the binary and package jobs call it in process, so they
// check a source the same way and say the same.
//
// A caller's mistake is an *Error (Kind Invalid with the bad fields, NotFound or Conflict,
// with the message a user reads); any other error is not the caller's.
//
// It imports no stage, no jobs, no api and no web (designtest holds it).
package sources
