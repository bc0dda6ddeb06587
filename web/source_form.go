package web

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// sourceForm is the add/edit form's fields as sent. Settings are the source types' settings
// by form field name, "<source type>.<setting>" (e.g. "rdf.shacl_profile").
type sourceForm struct {
	Name, URL, OrganizationID, SourceType, SchemaType, Frequency, NotificationEmails, NotificationFrequency string
	CollectionParentURL, WAFTimeZone, Accept, AuthHeaderName, AuthHeaderValue                               string
	Precedence                                                                                              string // as typed; "" is 0
	Settings                                                                                                map[string]string
	HasStoredSecret                                                                                         bool
}

// sourceFormData is what the form shows, in two steps that need no script: without a known
// source type, only the choice of one (Spec nil); with one, the form of that type: its schema
// types and its settings only. Its select lists (source type, schema type, each enumerated
// setting) are the source rule table's values (harvest.SourceSpecs).
type sourceFormData struct {
	Source            *store.Source // nil: a new one
	Form              sourceForm
	Errors            formErrors
	Orgs              []*store.Organization
	Specs             []harvest.SourceSpec
	Spec              *harvest.SourceSpec  // the chosen type's; nil: choose one first
	Path              string               // the form page's path: the type choice reloads it with ?source_type=
	SchemaTypes       []harvest.SchemaType // the chosen type's schema types, in the table's order
	Settings          []settingGroup       // the chosen type's settings (one group, or none)
	Frequencies       []harvest.Frequency
	NotifyFrequencies []harvest.NotificationFrequency
}

// settingGroup is the settings of one source type, as the form shows them.
type settingGroup struct {
	Type   harvest.SourceType
	What   string
	Fields []settingField
}

// settingField is one setting's form field: a select list of Values, or a text input when
// Values is nil. Stale is a stored value outside Values (saved before the rule table checked
// settings): the select shows it as not valid, so that saving the form refuses it rather than
// dropping it unseen.
type settingField struct {
	Name, ID, Label, Help, Value, Error string
	Values                              []string
	Stale                               bool
}

func (s *server) sourceFormData(r *http.Request, src *store.Source, f sourceForm, errs formErrors) (sourceFormData, error) {
	orgs, _, err := s.orgNames(r)
	d := sourceFormData{Source: src, Form: f, Errors: errs, Orgs: orgs, Specs: harvest.SourceSpecs,
		Spec: harvest.SpecOf(harvest.SourceType(f.SourceType)), Path: "/harvest_sources/new",
		Frequencies: frequencies, NotifyFrequencies: notifyFrequencies}
	if src != nil {
		d.Path = "/harvest_sources/" + src.ID + "/edit"
	}
	if d.Spec != nil {
		d.SchemaTypes = d.Spec.Schemas
	}
	for _, spec := range harvest.SourceSpecs {
		if len(spec.Settings) == 0 || d.Spec == nil || spec.Type != d.Spec.Type {
			continue
		}
		g := settingGroup{Type: spec.Type, What: spec.What}
		for _, set := range spec.Settings {
			name := string(spec.Type) + "." + set.Name
			v := f.Settings[name]
			g.Fields = append(g.Fields, settingField{Name: name, ID: string(spec.Type) + "-" + set.Name, Label: set.Name,
				Help: set.Help, Value: v, Error: errs[name], Values: set.Values,
				Stale: set.Values != nil && v != "" && !slices.Contains(set.Values, v)})
		}
		d.Settings = append(d.Settings, g)
	}
	return d, err
}

// sourceNew is GET /harvest_sources/new?source_type=&organization_id=: without a source
// type, the choice of one (step 1); with one, the form of that type (step 2). An unknown type
// is the choice again with a message at it (400).
func (s *server) sourceNew(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := sourceForm{SourceType: q.Get("source_type"),
		OrganizationID: q.Get("organization_id"), Frequency: string(harvest.FrequencyManual),
		NotificationFrequency: string(harvest.NotifyOnError), Precedence: "0"}
	errs, status := chosenType(f.SourceType)
	d, err := s.sourceFormData(r, nil, f, errs)
	if err != nil {
		return err
	}
	return s.render(w, r, status, "source_form.html", "Add a harvest source", d)
}

// chosenType checks a source type asked for by ?source_type=: "" (none chosen yet) and a
// type of the rule table are fine; another is a message at the field, and a 400.
func chosenType(t string) (formErrors, int) {
	if t == "" || harvest.SpecOf(harvest.SourceType(t)) != nil {
		return formErrors{}, http.StatusOK
	}
	return formErrors{"source_type": fmt.Sprintf("%q is not a source type: choose one of the list", t)},
		http.StatusBadRequest
}

func (s *server) sourceEdit(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	f := sourceForm{Name: src.Name, URL: src.URL, OrganizationID: src.OrganizationID, SourceType: string(src.SourceType),
		SchemaType: string(src.SchemaType), Frequency: string(src.Frequency),
		NotificationEmails: strings.Join(src.NotificationEmails, "\n"), NotificationFrequency: string(src.NotificationFrequency),
		CollectionParentURL: src.CollectionParentURL, WAFTimeZone: src.WAFTimeZone, Accept: src.Accept,
		Precedence: strconv.Itoa(src.Precedence), Settings: map[string]string{}}
	if src.AuthHeader != nil {
		f.AuthHeaderName, f.HasStoredSecret = src.AuthHeader.Name, true
	}
	for k, v := range src.Options {
		f.Settings[string(src.SourceType)+"."+k] = v
	}
	errs, status := formErrors{}, http.StatusOK
	if t := r.URL.Query().Get("source_type"); t != "" { // the type choice: this type's form
		if errs, status = chosenType(t); status == http.StatusOK {
			f.SourceType = t
		}
	}
	d, err := s.sourceFormData(r, src, f, errs)
	if err != nil {
		return err
	}
	return s.render(w, r, status, "source_form.html", "Edit "+src.Name, d)
}

func (s *server) sourceCreate(w http.ResponseWriter, r *http.Request) error {
	return s.sourceSave(w, r, nil)
}

func (s *server) sourceUpdate(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	return s.sourceSave(w, r, src)
}

// readSourceForm reads the posted form. Every setting field of every source type is read:
// the chosen type's are its options, and another type's filled-in setting that the chosen type
// does not have is passed on too, so that the rule table says it is not one of its settings
// (a browser can post anything).
func readSourceForm(r *http.Request, old *store.Source) (sourceForm, map[string]string) {
	f := sourceForm{Name: r.PostFormValue("name"), URL: r.PostFormValue("url"),
		OrganizationID: r.PostFormValue("organization_id"), SourceType: r.PostFormValue("source_type"),
		SchemaType: r.PostFormValue("schema_type"), Frequency: r.PostFormValue("frequency"),
		NotificationEmails: r.PostFormValue("notification_emails"), NotificationFrequency: r.PostFormValue("notification_frequency"),
		CollectionParentURL: r.PostFormValue("collection_parent_url"), WAFTimeZone: r.PostFormValue("waf_time_zone"),
		Accept: r.PostFormValue("accept"), AuthHeaderName: r.PostFormValue("auth_header_name"),
		AuthHeaderValue: r.PostFormValue("auth_header_value"), Precedence: r.PostFormValue("precedence"),
		Settings:        map[string]string{},
		HasStoredSecret: old != nil && old.AuthHeader != nil}
	var options map[string]string
	chosen := harvest.SpecOf(harvest.SourceType(f.SourceType))
	for _, spec := range harvest.SourceSpecs {
		for _, set := range spec.Settings {
			name := string(spec.Type) + "." + set.Name
			v := strings.TrimSpace(r.PostFormValue(name))
			if v == "" {
				continue
			}
			f.Settings[name] = v
			if spec.Type == harvest.SourceType(f.SourceType) || chosen == nil || chosen.Setting(set.Name) == nil {
				if options == nil {
					options = map[string]string{}
				}
				options[set.Name] = v
			}
		}
	}
	return f, options
}

// sourceParams is the source the form describes, with the API's defaults for what it leaves
// empty. A precedence that is not a whole number is recorded in fields (harvest.ParsePrecedence);
// its range is the rule table's.
func sourceParams(f sourceForm, options map[string]string, fields map[string]string) *store.SourceInsertParams {
	p := &store.SourceInsertParams{Name: strings.TrimSpace(f.Name), URL: strings.TrimSpace(f.URL),
		OrganizationID: strings.TrimSpace(f.OrganizationID),
		SourceType:     harvest.SourceType(cmp.Or(f.SourceType, string(harvest.SourceDocument))),
		Frequency:      harvest.Frequency(cmp.Or(f.Frequency, string(harvest.FrequencyManual))),
		NotificationFrequency: harvest.NotificationFrequency(cmp.Or(f.NotificationFrequency,
			string(harvest.NotifyOnError))),
		CollectionParentURL: strings.TrimSpace(f.CollectionParentURL), WAFTimeZone: strings.TrimSpace(f.WAFTimeZone),
		Accept: strings.TrimSpace(f.Accept), Options: options}
	var err error
	if p.Precedence, err = harvest.ParsePrecedence(f.Precedence); err != nil {
		fields["precedence"] = err.Error()
	}
	for _, e := range strings.FieldsFunc(f.NotificationEmails, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if e = strings.TrimSpace(e); e != "" {
			p.NotificationEmails = append(p.NotificationEmails, e)
		}
	}
	if name := strings.TrimSpace(f.AuthHeaderName); name != "" || f.AuthHeaderValue != "" {
		value := f.AuthHeaderValue
		if value == "" && f.HasStoredSecret {
			value = sources.SecretMask // keep the stored value
		}
		p.AuthHeader = &store.AuthHeader{Name: name, Value: value}
	}
	return p
}

// sourceSave saves the form (sources.Sources.Save: the source rule table and the API's other
// checks, with their messages); bad fields, or a URL another source has, show the form again
// with the messages by field. A setting's message is shown at its field ("options.<name>" in
// the API is "<source type>.<name>" here), or at the settings as a whole when the chosen type
// has no such setting.
func (s *server) sourceSave(w http.ResponseWriter, r *http.Request, old *store.Source) error {
	f, options := readSourceForm(r, old)
	title := "Add a harvest source"
	if old != nil {
		title = "Edit " + old.Name
	}
	errs := formErrors{}
	fields := map[string]string{}
	src, err := s.sources.Save(r.Context(), old, sourceParams(f, options, fields), strings.TrimSpace(f.SchemaType), fields)
	if err != nil {
		if err := errs.from(err, "url"); err != nil {
			return err
		}
		settingErrors(errs, harvest.SpecOf(harvest.SourceType(f.SourceType)))
	}
	if len(errs) == 0 {
		http.Redirect(w, r, "/harvest_sources/"+src.ID, http.StatusSeeOther)
		return nil
	}
	f.AuthHeaderValue = "" // never sent back to the browser
	d, err := s.sourceFormData(r, old, f, errs)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusUnprocessableEntity, "source_form.html", title, d)
}

// settingErrors moves the rule table's "options.<name>" messages to the chosen type's field
// of that setting, or to "options" (the settings as a whole), "<name>: <message>".
func settingErrors(errs formErrors, chosen *harvest.SourceSpec) {
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		name, ok := strings.CutPrefix(k, "options.")
		if !ok {
			continue
		}
		msg := errs[k]
		delete(errs, k)
		if chosen != nil && chosen.Setting(name) != nil {
			errs[string(chosen.Type)+"."+name] = msg
			continue
		}
		if prev := errs["options"]; prev != "" {
			msg = prev + "; " + name + ": " + msg
		} else {
			msg = name + ": " + msg
		}
		errs["options"] = msg
	}
}
