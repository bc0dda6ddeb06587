package harvest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ raw, want string }{
		{"https://example.gov/data.json", "https://example.gov/data.json"},
		{"https://example.gov/data.json#frag", "https://example.gov/data.json"},
		{"https://example.gov/data.json#", "https://example.gov/data.json"},
		{"https://example.gov/data.json?", "https://example.gov/data.json"},
		{"https://example.gov/data.json?#x", "https://example.gov/data.json"},
		{"https://example.gov/./data.json", "https://example.gov/data.json"},
		{"https://example.gov/a/../data.json", "https://example.gov/data.json"},
		{"https://example.gov/../../data.json", "https://example.gov/data.json"},
		{"https://example.gov/a/%2E%2E/data.json", "https://example.gov/data.json"},
		{"https://example.gov/a/./b/.", "https://example.gov/a/b/"},
		{"https://example.gov/a/b/..", "https://example.gov/a/"},
		{"https://example.gov:443/data.json", "https://example.gov/data.json"},
		{"https://example.gov:0443/data.json", "https://example.gov/data.json"},
		{"http://example.gov:80/data.json", "http://example.gov/data.json"},
		{"https://example.gov:80/data.json", "https://example.gov:80/data.json"},
		{"http://example.gov:08080/data.json", "http://example.gov:8080/data.json"},
		{"http://example.gov:/data.json", "http://example.gov/data.json"},
		{"  https://example.gov/data.json \n", "https://example.gov/data.json"},
		{"\thttps://example.gov/data.json", "https://example.gov/data.json"},
		{"HTTPS://Data.Example.GOV/Path/Data.JSON", "https://data.example.gov/Path/Data.JSON"},
		{"https://example.gov", "https://example.gov/"},
		{"https://example.gov?q=1", "https://example.gov/?q=1"},
		{"https://example.gov/%7Euser/data.json", "https://example.gov/~user/data.json"},
		{"https://example.gov/%7euser/d%61ta.json", "https://example.gov/~user/data.json"},
		{"https://example.gov/a%2fb", "https://example.gov/a%2Fb"},
		{"https://example.gov/a%2Fb", "https://example.gov/a%2Fb"},
		{"https://example.gov/a%20b", "https://example.gov/a%20b"},
		{"https://example.gov/a%c3%84", "https://example.gov/a%C3%84"},
		{"https://example.gov/aÄ", "https://example.gov/a%C3%84"},
		{"https://example.gov/data.json?Format=JSON&b=%7e&c=%2f&d=a+b&e=", "https://example.gov/data.json?Format=JSON&b=~&c=%2F&d=a+b&e="},
		{"https://example.gov/data.json?b=2&a=1", "https://example.gov/data.json?b=2&a=1"},
		{"https://example.gov//a//data.json", "https://example.gov//a//data.json"},
		{"https://User:PaSS@Example.GOV:8443/a", "https://User:PaSS@example.gov:8443/a"},
		{"http://[FE80::AB]:80/X", "http://[fe80::ab]/X"},
		{"http://[FE80::AB%25EtH0]/X", "http://[fe80::ab%25EtH0]/X"},
		{"http://B%C3%84R.Example/%C3%84", "http://b%C3%84r.example/%C3%84"},
		{"http://ÄB.Example/Ä", "http://%C3%84b.example/%C3%84"},
		{"https://a@B@C.gov/@D", "https://a%40B@c.gov/@D"},
	} {
		got, err := NormalizeURL(c.raw)
		require.NoError(t, err, c.raw)
		require.Equal(t, c.want, got, c.raw)
		again, err := NormalizeURL(got)
		require.NoError(t, err, got)
		require.Equal(t, got, again, "idempotent: %s", c.raw)
	}
	for raw, msg := range map[string]string{
		"":                       `"" is not an absolute http or https URL`,
		"example.gov/data.json":  `"example.gov/data.json" is not an absolute http or https URL`,
		"ftp://example.gov/x":    `"ftp://example.gov/x" is not an absolute http or https URL`,
		"https:example.gov":      `"https:example.gov" is not an absolute http or https URL`,
		"https:///data.json":     `"https:///data.json" has no host`,
		"https://exa mple.gov/x": `"https://exa mple.gov/x" is not a URL: invalid character " " in host name`,
	} {
		_, err := NormalizeURL(raw)
		require.EqualError(t, err, msg, raw)
	}
}

func TestSameSourceURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://example.gov/data.json", "HTTPS://EXAMPLE.GOV:0443/./data.json?#frag ", true},
		{"https://example.gov/a/data.json", "https://example.gov//a//data.json", true},
		{"https://example.gov/a/data.json?x=1//2", "https://example.gov/a/data.json?x=1/2", false},
		{"https://example.gov/Data.json", "https://example.gov/data.json", false},
		{"http://example.gov/data.json", "https://example.gov/data.json", false},
		{"https://example.gov/data.json?a=1", "https://example.gov/data.json", false},
		{"not a url", "not a url", true},
	} {
		require.Equal(t, c.same, SameSourceURL(c.a, c.b), "%s vs %s", c.a, c.b)
	}
}
