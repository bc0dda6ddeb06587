package harvest

import (
	"fmt"
	"regexp"
	"strings"
)

// reLanguageRange is an RFC 4647 basic language range: "*", or a BCP 47 primary subtag and
// subtags ("en", "nb", "en-GB", "zh-Hant").
var reLanguageRange = regexp.MustCompile(`^(\*|[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*)$`)

// ParseLanguages reads a language preference list as the `languages` source option and the
// --languages flag write it: comma-separated language tags, most wanted first ("nb,nn,en";
// spaces around entries allowed). It returns the tags lower-cased (tags are case-insensitive),
// duplicates dropped; "" gives nil (the default applies). An entry that is not a language
// tag is an error naming it.
func ParseLanguages(s string) ([]string, error) {
	var out []string
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		tag := strings.ToLower(strings.TrimSpace(part))
		if !reLanguageRange.MatchString(tag) {
			return nil, fmt.Errorf("languages: %q is not a language tag (want e.g. \"en,nb\")", strings.TrimSpace(part))
		}
		dup := false
		for _, o := range out {
			dup = dup || o == tag
		}
		if !dup {
			out = append(out, tag)
		}
	}
	return out, nil
}
