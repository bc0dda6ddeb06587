package harvest

import (
	"strings"
	"time"
)

// LinkCheck asks CHECK to check distribution URLs (SubjectCheck). SYNC sends one per dataset it
// added or changed that has any (JobID and SourceID set); the scheduler's leader sends those of
// stale checks (no job, no source). CHECK checks a URL only when it is due: no stored check, or
// one older than its recheck interval, so a URL shared by many datasets is requested once.
type LinkCheck struct {
	V        int      `json:"v"`
	JobID    string   `json:"job_id,omitempty"`
	SourceID string   `json:"source_id,omitempty"`
	URLs     []string `json:"urls"`
}

// QualityReport is the quality event of a source (SubjectQuality), published once per harvest
// job (harvest and force_harvest) of a source that checks its links, when the checks of the
// job's URLs have settled: the MQA of the source's live datasets from their records and
// their links' stored checks. Score is the mean of the datasets' scores (0 to Max, 405);
// Rating its band (Excellent, Good, Sufficient, Bad).
type QualityReport struct {
	V         int                `json:"v"`
	JobID     string             `json:"jobId"`
	SourceID  string             `json:"sourceId"`
	Time      time.Time          `json:"time"` // when the checks settled, UTC
	Score     float64            `json:"score"`
	Max       int                `json:"max"`
	Rating    string             `json:"rating"`
	Datasets  int                `json:"datasets"`
	Links     QualityLinks       `json:"links"`
	Costliest []QualityIndicator `json:"costliest"` // the indicators that cost the most points, up to 5
}

// QualityLinks counts a source's distinct distribution URLs by their stored check.
type QualityLinks struct {
	URLs      int `json:"urls"`
	Checked   int `json:"checked"`
	OK        int `json:"ok"`
	Broken    int `json:"broken"`
	Unchecked int `json:"unchecked"` // not checkable (ftp:, mailto:, …), excluded or never checked
}

// QualityIndicator is an MQA indicator and the points it costs the average dataset.
type QualityIndicator struct {
	Metric string  `json:"metric"` // piveau's name, e.g. pv:keywordAvailability
	Lost   float64 `json:"lost"`
	Max    int     `json:"max"`
}

// SettingLinkChecks is the source setting (option) that every source type takes: "off" keeps
// CHECK from checking the source's distribution URLs; "" or "on" checks them.
const SettingLinkChecks = "link_checks"

// LinkChecksOn reports whether a source with options checks its links (SettingLinkChecks).
func LinkChecksOn(options map[string]string) bool {
	return strings.TrimSpace(options[SettingLinkChecks]) != "off"
}

// linkChecksSetting is SettingLinkChecks as a row of every source type's Settings.
var linkChecksSetting = SourceSetting{Name: SettingLinkChecks, Values: []string{"on", "off"}, Default: "on",
	Help: "on: CHECK tests the distribution URLs (accessURL, downloadURL) of its datasets; off: never"}

// withCommonSettings adds the settings every source type takes to each row of specs.
func withCommonSettings(specs []SourceSpec) []SourceSpec {
	for i := range specs {
		specs[i].Settings = append(specs[i].Settings, linkChecksSetting)
	}
	return specs
}
