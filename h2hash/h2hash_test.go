package h2hash

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// The expected values below were computed by Python 3.11 with sansjson 0.3.0:
// json.dumps(sansjson.sort_pyobject(record)) and
// hashlib.sha256(json.dumps(json.dumps(sansjson.sort_pyobject(record))).encode()).hexdigest().
var pythonCases = []struct{ record, sorted, hash string }{
	{`{"b": 1, "a": [3, 1, 2], "c": ["b", "a", "C"]}`,
		`{"a": [1, 2, 3], "b": 1, "c": ["C", "a", "b"]}`,
		"4fe4fdb5a9336f1098ab61239905b8b1f52c8ef249f5351bf41d8201166d6c1e"},
	{`{"x": [1, "a", null, true, 2.5, [2, 1], {"k": 1}, false, null, 0]}`,
		`{"x": [null, null, false, true, 0, 1, 2.5, "a", [2, 1], {"k": 1}]}`,
		"0696bd91449964587388b6343174f6893f309923e77d7ad4a4cf26fcc76fa38e"},
	{`{"n": [1.0, 1, true, 0.5, 1e+20, 1e-07, 123456789012345678901234567890, -0.0, 100.0, 1.5e+16]}`,
		`{"n": [-0.0, 1e-07, 0.5, 1.0, 1, true, 100.0, 1.5e+16, 1e+20, 123456789012345678901234567890]}`,
		"9297d3041371294a8df7d1d8462a92b483e651a6ab0a21b9c8dfb8965cd898ad"},
	{`{"s": "caf\u00e9 \ud83d\ude00 \"q\" \\ / \n\t\u007f \u0001"}`,
		`{"s": "caf\u00e9 \ud83d\ude00 \"q\" \\ / \n\t\u007f \u0001"}`,
		"a2db29f6a696d53772bdc37057696e59ff66d2701c695ab31bd6a7d85b2a3218"},
	{`{"distribution": [{"title": "b", "@type": "dcat:Distribution", "downloadURL": "http://x/2"}, {"@type": "dcat:Distribution", "title": "a", "downloadURL": "http://x/1"}, {"@type": "dcat:Distribution", "accessURL": "http://x/3"}]}`,
		`{"distribution": [{"@type": "dcat:Distribution", "accessURL": "http://x/3"}, {"@type": "dcat:Distribution", "downloadURL": "http://x/1", "title": "a"}, {"@type": "dcat:Distribution", "downloadURL": "http://x/2", "title": "b"}]}`,
		"feab9a063daa17c147b10643889062e20f56399a46f0f2297ef34009bbc71cab"},
	{`{"d": [{"k": [{"a": 1}], "z": 1}, {"k": [{"b": 2}], "z": 0}, {"k": [{"a": 1, "c": 3}]}]}`,
		`{"d": [{"k": [{"a": 1, "c": 3}]}, {"k": [{"a": 1}], "z": 1}, {"k": [{"b": 2}], "z": 0}]}`,
		"4ad6cc39fb3ea0f4d64d376aea6fd69bb7c7632f00973fc254fa9d3ff426737f"},
	{`{"d": [{"k": ["b"], "z": 2}, {"k": ["a"], "z": 1}]}`,
		`{"d": [{"k": ["b"], "z": 2}, {"k": ["a"], "z": 1}]}`,
		"bca189c2da00a8ded2898810f4b03f25108aa6585290212d098b7efae2572e07"},
	{`{"d": [{"k": 1}, {"k": 1.0}, {"k": "1"}, {"k": null}, {"k": true}, {}, {"j": 5}]}`,
		`{"d": [{}, {"j": 5}, {"k": null}, {"k": true}, {"k": 1}, {"k": 1.0}, {"k": "1"}]}`,
		"911378d3c8bddc3697fe6009488afe4e2f68b3d08f1aaa9d9a9622cbd8d9874c"},
	{`{"l": [[3, 2], [1, 9], [1, 2, 3], []]}`,
		`{"l": [[], [1, 2, 3], [1, 9], [3, 2]]}`,
		"50b41240ce8ff785489a0118b4932153efc6ca6ea2f405213f5bc49b9688085c"},
	{`{"e": [], "f": {}, "g": [{}], "h": [null], "i": [null, null]}`,
		`{"e": [], "f": {}, "g": [{}], "h": [null], "i": [null, null]}`,
		"c0eb4e128e505ab89a83514967fa25ffc80771e71c757e55ef4d825a50dedc51"},
}

func TestJSONMatchesPython(t *testing.T) {
	for _, c := range pythonCases {
		sorted, err := Sorted([]byte(c.record))
		require.NoError(t, err, c.record)
		require.Equal(t, c.sorted, sorted, c.record)
		hash, err := JSON([]byte(c.record))
		require.NoError(t, err)
		require.Equal(t, c.hash, hash, c.record)
	}
}

// TestJSONCFTC checks the vectors of the reference notes (datagov-harvester.md §2.3), computed
// from example_data/dcatus/dcatus.json, which is the corpus's datagov-cftc.data.json; dc4 to dc7
// computed the same way.
func TestJSONCFTC(t *testing.T) {
	want := map[string]string{
		"cftc-dc1": "54e17bb8afd4930ae4e95b9a2001b6619b293f8bfc1b1124dbd7af0d4c20c7bd",
		"cftc-dc2": "a2d81e44dfbce23c61c8ba960b74af0363cdeff9f3de5b0b55473d3f1e5f8a36",
		"cftc-dc3": "25dccf141954a1a0f770e8a9adfe871b88553d25667492ce3829243c56780b68",
		"cftc-dc4": "fcac71076fbf0f85dfa234c1503916dfd767606f7a2c269e30b3d643ff12f527",
		"cftc-dc5": "7009bfb38f6cb6b5c1dabb797e56e6d575499ff16425580e92435c9be94f6bbe",
		"cftc-dc6": "ce2aec279107d26c02846e839ad312e01bf485a87fb8f40328291b8f3a693ba8",
		"cftc-dc7": "cc3987b89bcab66c83220afc0fb824cb5058cec598a1e28331ed7fef664ebfca",
	}
	raw, err := os.ReadFile(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))
	require.NoError(t, err)
	var catalog struct{ Dataset []json.RawMessage }
	require.NoError(t, json.Unmarshal(raw, &catalog))
	require.Len(t, catalog.Dataset, len(want))
	for _, d := range catalog.Dataset {
		var id struct{ Identifier string }
		require.NoError(t, json.Unmarshal(d, &id))
		got, err := JSON(d)
		require.NoError(t, err)
		require.Equal(t, want[id.Identifier], got, id.Identifier)
	}
}

func TestXML(t *testing.T) {
	require.Equal(t, "72b66cf3d34f84ce8367d4d7960b27b594f578a7105ebee1a2fe0fab2dd01ca7", XML("<?xml version=\"1.0\"?>\n<gmd:MD_Metadata>caf\u00e9 \"x\"</gmd:MD_Metadata>\n"))
}

func TestJSONErrors(t *testing.T) {
	_, err := JSON([]byte(`{"a": `))
	require.Error(t, err)
	// Python raises comparing two dicts whose first keys hold different dicts.
	_, err = JSON([]byte(`{"d": [{"k": {"a": 1}}, {"k": {"a": 2}}]}`))
	require.ErrorIs(t, err, errType)
}
