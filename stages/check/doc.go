// Package check is the link checker of the CHECK stage (DESIGN.md: distribution URLs of added or
// changed datasets and of stale checks → one polite HTTP check per distinct URL → link results;
// it never holds a job's report): the checker, its result types and the stage's handler.
//
// The stage ([Handler], wired by pipeline as `--stages check`) consumes two subjects and settles
// nothing of a job:
//
//   - harvest.v1.check (stream HARVEST_CHECK): a harvest.LinkCheck names URLs, sent by SYNC for
//     each dataset it adds or changes and by the scheduler's leader ([Rechecker]) for stale
//     checks. [Handler.HandleLinks] checks those due (no stored check, or one older than
//     StageConfig.Recheck) and stores the results (check.Fold into table link_result).
//   - harvest.v1.report (consumer harvest-check-settle, from the stream's next message): on the
//     report of a harvest or force_harvest job of a source that checks its links
//     (harvest.SettingLinkChecks), [Handler.HandleReport] checks what is still due of the
//     source's URLs, waits for those being checked, and publishes the source's
//     harvest.QualityReport on harvest.v1.quality, kept in table quality_report.
//
// A [Checker] checks a batch of URLs gathered from many datasets and returns one [Result] per
// distinct URL:
//
//   - Once per URL: a URL repeated in a batch is checked once, and a URL already being checked
//     by another call of the same Checker is waited for, not requested again.
//   - HEAD, then GET with "Range: bytes=0-0" when HEAD answers 403, 404, 405 or 501 (servers
//     that refuse or do not implement HEAD); of a GET's body at most a few bytes are read
//     before the connection is closed.
//   - Redirects (301, 302, 303, 307, 308 with a Location) are followed one hop at a time, at
//     most Config.MaxRedirects; every hop dials through the SSRF guard of package fetch
//     ([fetch.RefuseAddress] on the address dialled) unless Config.AllowPrivate, and takes a
//     turn of its own host's limits.
//   - Per host (name and port) at most Config.HostConcurrency requests at a time and
//     Config.HostRate a second, shared by every call of the Checker. A 429 or 503 with a
//     Retry-After of at most Config.MaxRetryAfter pauses the host that long and retries (at
//     most Config.Retries times); a 429 or such a 503 also halves the host's rate (down to an
//     eighth) until the host has been idle a while.
//   - Config.Timeout bounds each request: connecting, TLS, the headers and the first bytes of a
//     GET's body, so a server that answers slowly or drips its body cannot hold a check longer.
//   - No request at all for a URL that is not http(s) with a host (ftp:, mailto:, a relative
//     reference, garbage: [NotCheckable]) or whose host is excluded ([Excluded]).
//
// Every request sends Config.UserAgent, by default the User-Agent of every fetch
// ([fetch.UserAgent]). [Fold] merges a new Result into a [Stored] one (last OK, consecutive
// failures); [Result.LinkResult] is what the quality score reads.
package check
