package iso

import (
	"cmp"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// party is a responsible party (19139 CI_ResponsibleParty or 19115-3 CI_Responsibility).
type party struct {
	org, individual, email, role string
	notEmails                    []string // e-mail field values that hold no address (EmailAddress)
}

func (p party) name() string {
	if p.org != "" {
		return p.org
	}
	return p.individual
}

func parties(from []*node) []party {
	var out []party
	for _, n := range append(find(from, "CI_ResponsibleParty"), find(from, "CI_Responsibility")...) {
		p := party{role: code(child(n, "role"))}
		if n.Local == "CI_ResponsibleParty" {
			p.org = value(child(n, "organisationName"))
			p.individual = value(child(n, "individualName"))
		} else {
			p.org = value(first(path([]*node{n}, "party", "CI_Organisation", "name")))
			p.individual = value(first(path(find([]*node{n}, "CI_Individual"), "name")))
		}
		for _, e := range find([]*node{n}, "electronicMailAddress") {
			v := value(e)
			if addr, ok := EmailAddress(v); ok && p.email == "" {
				p.email = addr
			} else if !ok && v != "" {
				p.notEmails = append(p.notEmails, v)
			}
		}
		out = append(out, p)
	}
	return out
}

const xlinkNS = "http://www.w3.org/1999/xlink"

// linkedParties returns the parties given by reference: property elements (gmd:contact,
// gmd:pointOfContact, gmd:citedResponsibleParty…) with no content but an xlink:href and the
// xlink:title that names the party. NOAA's titles carry the role: "publisher - NCEI" or
// "NCEI (pointOfContact)"; any other title is the party's name, with no role.
func linkedParties(props []*node) []party {
	var out []party
	for _, n := range props {
		title := ""
		for _, a := range n.Attrs {
			if a.Name.Space == xlinkNS && a.Name.Local == "title" {
				title = strings.Join(strings.Fields(a.Value), " ")
			}
		}
		if title == "" || len(n.Children) > 0 {
			continue
		}
		p := party{org: title}
		if role, name, ok := strings.Cut(title, " - "); ok && roleCode(role) {
			p.role, p.org = role, name
		} else if name, role, ok := strings.Cut(strings.TrimSuffix(title, ")"), " ("); ok && strings.HasSuffix(title, ")") && roleCode(role) {
			p.role, p.org = role, name
		}
		out = append(out, p)
	}
	return out
}

// roleCode reports whether s is a CI_RoleCode value (ISO 19115-1 and -2 codes).
func roleCode(s string) bool {
	switch s {
	case "resourceProvider", "custodian", "owner", "user", "distributor", "originator", "pointOfContact",
		"principalInvestigator", "processor", "publisher", "author", "sponsor", "coAuthor", "collaborator",
		"editor", "mediator", "rightsHolder", "contributor", "funder", "stakeholder":
		return true
	}
	return false
}

// contactPoint returns the dataset's contact: of the resource's points of contact, then the
// metadata contacts, the first with an e-mail address, else the first with a name;
// placeholders for what none has. An e-mail field that holds no address (a web address) is
// skipped with a warning (EmailAddress, the FGDC mapper's rule too).
func (m *mapper) contactPoint(contacts []party) *dcatus.ContactPoint {
	c := dcatus.NewContactPoint("", "")
	var skipped []string
	for _, p := range contacts {
		for _, v := range p.notEmails {
			if !slices.Contains(skipped, v) {
				skipped = append(skipped, v)
				m.Warn("contactPoint", "%s", SkippedEmail(v))
			}
		}
	}
	for _, p := range contacts {
		if p.email != "" {
			c.FN, c.HasEmail = p.name(), "mailto:"+p.email
			break
		}
	}
	if c.FN == "" {
		for _, p := range contacts {
			if p.name() != "" {
				c.FN = p.name()
				break
			}
		}
	}
	if c.FN == "" {
		c.FN = PlaceholderContactName
		m.Warn("contactPoint", "the record has no point of contact name; used the placeholder %q", PlaceholderContactName)
	}
	if c.HasEmail == "" {
		c.HasEmail = PlaceholderContactEmail
		m.Warn("contactPoint", "the record has no point of contact e-mail; used the placeholder %q", PlaceholderContactEmail)
	}
	return c
}

// publisher returns the publisher's name: the citation's publisher, any publisher, else the
// contacts' organisation, else a party given by reference (a publisher, else any), else
// publisherName, else PlaceholderPublisher (both with a warning).
func (m *mapper) publisher(cit *node, idents []*node, contacts []party, publisherName string) string {
	for _, group := range [][]party{parties([]*node{cit}), parties([]*node{m.root})} {
		for _, p := range group {
			if p.role == "publisher" && p.org != "" {
				return p.org
			}
		}
	}
	for _, p := range contacts {
		if p.org != "" {
			return p.org
		}
	}
	linked := linkedParties(slices.Concat(path([]*node{cit}, "citedResponsibleParty"),
		path(idents, "pointOfContact"), path([]*node{m.root}, "contact")))
	for _, p := range linked {
		if p.role == "publisher" && p.org != "" {
			return p.org
		}
	}
	if len(linked) > 0 && linked[0].org != "" {
		return linked[0].org
	}
	pub := cmp.Or(publisherName, PlaceholderPublisher)
	m.Warn("publisher", "the record names no organisation; used %q", pub)
	return pub
}

// ownContactInfo reports whether n is a party whose contact information is its own, so that a
// web page in it (contactInfo/CI_Contact/onlineResource) is the party's, not the data's: every
// 19115-3 cit:CI_Responsibility (its citations hold their own online resources), and an ISO
// 19139 gmd:CI_ResponsibleParty that names someone (an organisationName, individualName or
// positionName). A CI_ResponsibleParty that names no one is how 19139 records (NOAA InPort's)
// give a citation its links, which 19115:2003's CI_Citation has no element for: its online
// resources are the citation's.
func ownContactInfo(n *node) bool {
	switch {
	case !isoNamespace(n.Space):
		return false
	case n.Local == "CI_Responsibility":
		return true
	case n.Local != "CI_ResponsibleParty":
		return false
	}
	for _, name := range []string{"organisationName", "individualName", "positionName"} {
		if value(child(n, name)) != "" {
			return true
		}
	}
	return false
}
