package xmltree

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func byLocal(n *Node, step string) bool { return n.Local == step }

// Parse resolves namespaces; ParseRaw keeps prefixes, and the URI an element binds itself.
func TestNames(t *testing.T) {
	doc := []byte(`<a:r xmlns:a="urn:a" id="1"><a:t> x </a:t><t>y</t><a:t>z</a:t></a:r>`)
	root, err := Parse(doc, Limits{})
	require.NoError(t, err)
	require.Equal(t, "urn:a", root.Space)
	require.Equal(t, "", root.Prefix)
	require.Equal(t, "1", root.Attr("id"))
	require.Equal(t, " x ", root.Child("t", byLocal).Text.String())
	inA := func(n *Node, step string) bool { return n.Local == step && n.Space == "urn:a" }
	require.Len(t, Path([]*Node{root, nil}, inA, "t"), 2)

	raw, err := ParseRaw(doc, Limits{})
	require.NoError(t, err)
	require.Equal(t, "a", raw.Prefix)
	require.Equal(t, "urn:a", raw.Space)
	require.Equal(t, "a", raw.Children[0].Prefix)
	require.Equal(t, "", raw.Children[0].Space, "the child does not bind its prefix itself")
	unprefixed := func(n *Node, step string) bool { return n.Local == step && n.Prefix == "" }
	require.Equal(t, "y", raw.Child("t", unprefixed).Text.String())
	require.Nil(t, (*Node)(nil).Child("t", byLocal))
	require.Equal(t, "", (*Node)(nil).Attr("id"))
}

// A chain nested past MaxDepth (a million deep costs no recursion) and more elements than
// MaxElements are ErrLimit; one within the limits is read.
func TestLimits(t *testing.T) {
	for _, depth := range []int{11, 1_000_000} {
		deep := strings.Repeat("<a>", depth) + strings.Repeat("</a>", depth)
		_, err := Parse([]byte(deep), Limits{MaxDepth: 10})
		require.ErrorIs(t, err, ErrLimit)
		require.EqualError(t, err, "XML record over the reader's limits: elements nested more than 10 deep")
	}
	_, err := Parse([]byte(strings.Repeat("<a>", 10)+strings.Repeat("</a>", 10)), Limits{MaxDepth: 10})
	require.NoError(t, err)
	_, err = ParseRaw([]byte("<r>"+strings.Repeat("<a/>", 40)+"</r>"), Limits{MaxElements: 40})
	require.ErrorIs(t, err, ErrLimit)
	require.ErrorContains(t, err, "more than 40 elements")
}

// Malformed documents are ErrMalformed with line and column; Error.Root names the root read
// before the error; Rewrap puts a mapper's sentinels in place of Parse's.
func TestMalformed(t *testing.T) {
	mine, myLimit := errors.New("my malformed"), errors.New("my limit")
	for doc, want := range map[string]string{
		"":                "malformed XML: no root element",
		"<r/>\n<s/>":      "malformed XML: line 2, column 5: more than one root element",
		"<r>\n  <x>":      "malformed XML: line 2, column 6: unexpected EOF",
		"<r>&agency;</r>": "malformed XML: line 1, column 12: invalid character entity &agency; (entities a DOCTYPE declares",
		`<r><a></b></r>`:  "malformed XML: line 1, column 11: element <a> closed by </b>",
		`<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>`: "invalid character entity &x;",
	} {
		_, err := Parse([]byte(doc), Limits{})
		require.ErrorIs(t, err, ErrMalformed, doc)
		require.ErrorContains(t, err, want, doc)
		require.ErrorIs(t, Rewrap(err, mine, myLimit), mine)
		require.Equal(t, strings.Replace(err.Error(), "malformed XML", "my malformed", 1), Rewrap(err, mine, myLimit).Error())
	}
	for doc, want := range map[string]string{
		"<r><a></b></r>": "unexpected end element </b>",
		"<r><a></a>":     "element <r> is not closed",
	} {
		_, err := ParseRaw([]byte(doc), Limits{})
		require.ErrorIs(t, err, ErrMalformed, doc)
		require.ErrorContains(t, err, want, doc)
	}
	_, err := Parse([]byte(`<x:r xmlns:x="urn:x"><a>`), Limits{})
	var xe *Error
	require.ErrorAs(t, err, &xe)
	require.Equal(t, "r", xe.Root.Local)
	require.Equal(t, "urn:x", xe.Root.Space)
	_, err = Parse([]byte(strings.Repeat("<a>", 5)), Limits{MaxDepth: 2})
	require.ErrorIs(t, Rewrap(err, mine, myLimit), myLimit)
	require.Nil(t, Rewrap(nil, mine, myLimit))
}
