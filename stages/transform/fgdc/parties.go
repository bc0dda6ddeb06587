package fgdc

import (
	"cmp"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// contact is one CSDGM contact information (cntinfo, CSDGM section 10).
type contact struct {
	person, org string // cntperp or cntorgp: cntper and cntorg
	personFirst bool   // the contact is a person (cntperp), not an organization
	emails      []string
	notEmails   []string // cntemail values that hold no address (iso.EmailAddress)
}

// name returns the contact's primary name: the person of a person-primary contact, the
// organization of an organization-primary one, else whichever is given.
func (c contact) name() string {
	if c.personFirst {
		return cmp.Or(c.person, c.org)
	}
	return cmp.Or(c.org, c.person)
}

// notProvided are names that say there is none.
var notProvided = map[string]bool{"not provided": true, "none": true, "unknown": true, "n/a": true, "": true}

func realName(s string) string {
	if notProvided[strings.ToLower(strings.TrimSuffix(s, "."))] {
		return ""
	}
	return s
}

// contacts reads the cntinfo elements under the nodes.
func contacts(from []*node) []contact {
	var out []contact
	for _, ci := range path(from, "cntinfo") {
		var c contact
		primary := child(ci, "cntperp")
		c.personFirst = primary != nil
		if primary == nil {
			primary = child(ci, "cntorgp")
		}
		c.person = realName(value(child(primary, "cntper")))
		c.org = realName(value(child(primary, "cntorg")))
		for _, e := range values([]*node{ci}, "cntemail") {
			if addr, ok := iso.EmailAddress(e); ok {
				c.emails = append(c.emails, addr)
			} else {
				c.notEmails = append(c.notEmails, e)
			}
		}
		out = append(out, c)
	}
	return out
}

// contactPoint returns the dataset's contact: of the point of contact (idinfo/ptcontac), the
// metadata contact (metainfo/metc) and the distributors (distinfo/distrib), in that order,
// the first with an e-mail address, else the first with a name; placeholders for what none
// has. MDTranslator's DCAT-US writer takes the first point of contact only, and fails on a
// record without one (most CSDGM records: ptcontac is optional). A cntemail that holds no
// address (a web page) is skipped with a warning, the ISO mapper's rule (iso.EmailAddress).
func (m *mapper) contactPoint() *dcatus.ContactPoint {
	all := contacts([]*node{child(m.idinfo, "ptcontac")})
	all = append(all, contacts([]*node{at(m.root, "metainfo", "metc")})...)
	all = append(all, contacts(path([]*node{m.root}, "distinfo", "distrib"))...)
	var skipped []string
	for _, p := range all {
		for _, v := range p.notEmails {
			if !slices.Contains(skipped, v) {
				skipped = append(skipped, v)
				m.Warn("contactPoint", "%s", iso.SkippedEmail(v))
			}
		}
	}
	c := dcatus.NewContactPoint("", "")
	for _, p := range all {
		if len(p.emails) > 0 {
			c.FN, c.HasEmail = p.name(), "mailto:"+p.emails[0]
			break
		}
	}
	if c.FN == "" {
		for _, p := range all {
			if p.name() != "" {
				c.FN = p.name()
				break
			}
		}
	}
	if c.FN == "" {
		c.FN = iso.PlaceholderContactName
		m.Warn("contactPoint", "the record has no contact name; used the placeholder %q", iso.PlaceholderContactName)
	}
	if c.HasEmail == "" {
		c.HasEmail = iso.PlaceholderContactEmail
		m.Warn("contactPoint", "the record has no contact e-mail address; used the placeholder %q", iso.PlaceholderContactEmail)
	}
	return c
}

// publisher returns the publisher's name: the citation's publisher (citeinfo/pubinfo/publish),
// else a distributor's organization (MDTranslator's fallback), else the citation's first
// originator (citeinfo/origin), else publisherName, else iso.PlaceholderPublisher (both with
// a warning).
func (m *mapper) publisher(cit *node, publisherName string) string {
	if p := realName(value(at(cit, "pubinfo", "publish"))); p != "" {
		return p
	}
	for _, c := range contacts(path([]*node{m.root}, "distinfo", "distrib")) {
		if c.org != "" {
			return c.org
		}
	}
	for _, o := range values([]*node{cit}, "origin") {
		if o = realName(o); o != "" {
			return o
		}
	}
	pub := cmp.Or(publisherName, iso.PlaceholderPublisher)
	m.Warn("publisher", "the record names no publisher, distributor or originator; used %q", pub)
	return pub
}
