// Package fetch is the HTTP client of every part of Harvester that downloads a harvest
// source's documents (EXTRACT, the validate API, the command line): one GET of a URL into a
// temporary file, with the policy of docs/operators-guide.md's Fetching paragraph. The file has no name on
// disk (removed once created, spool): it is freed when closed or when the process ends, even
// by kill -9.
//
//   - Timeouts: connecting, waiting for the headers, and the whole GET (Config).
//   - Retries: network errors, timeouts, 429 and 5xx are tried again with jittered exponential
//     backoff (github.com/cenkalti/backoff/v5) within a retry budget, honouring Retry-After;
//     any other status fails at once. Every failure is an *Error naming the URL, the HTTP
//     status, the title of the server's error page and the attempts made.
//   - Caps: a document over Config.MaxBytes after decompression (ErrTooLarge), more than
//     Config.MaxRedirects redirects (ErrTooManyRedirects), and at most Config.MaxPerHost GETs
//     to one host at a time in a process (golang.org/x/sync/semaphore).
//   - SSRF guard: loopback, private, link-local and the other IANA special-purpose addresses
//     are refused (ErrPrivateAddress) on the address actually dialled, unless
//     Config.AllowPrivate; the environment's proxy is never used, and through an explicit
//     Config.Proxy every address of the request's host and of each redirect's is checked
//     first. CheckSourceAddress applies the same rule to a URL before any job runs.
//   - Conditional GET (GetDocument with Validators; a 304 is a NotModified Document), gzip
//     (negotiated or a .gz body), the charset of a JSON document (ToUTF8), and HTML pages
//     served where a document was expected (NotHTML, HTMLPage).
//
// It imports nothing of Harvester's: the stages and the API build on it, never the reverse.
package fetch
