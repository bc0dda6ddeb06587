package fetch

import (
	"runtime/debug"
	"strings"
	"sync"
)

// UserAgent returns the User-Agent of every request Harvester makes (fetching sources, checking
// links): "Harvester/<version> (+<contactURL>; open-data metadata harvester)", or without the
// "+<contactURL>; " part when contactURL is empty. The version is the main module's as the Go
// toolchain stamped it into the binary (runtime/debug.ReadBuildInfo): a tag (v1.2.0), a
// pseudo-version, or "devel" for a build from a checkout, followed by "+<revision>" (its first
// 12 hex digits) when the build recorded one. contactURL is where a site's operator can reach
// the harvester's operator (a page or a mailto: URL, RFC 9110 §10.1.5 asks for one); a "+"
// before it, as crawlers write it, marks it as a URL. It is not checked: cmd/ checks the flag.
func UserAgent(contactURL string) string {
	comment := "open-data metadata harvester"
	if contactURL != "" {
		comment = "+" + contactURL + "; " + comment
	}
	return "Harvester/" + buildVersion() + " (" + comment + ")"
}

// buildVersion is UserAgent's product version, read once.
var buildVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
})

// versionOf is the product version of a build: a token (RFC 9110 §5.6.2), so "(devel)" becomes
// "devel".
func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				v += "+" + s.Value[:min(12, len(s.Value))]
			}
		}
	}
	return strings.Map(func(r rune) rune {
		if r < '!' || r > '~' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return '-'
		}
		return r
	}, v)
}
