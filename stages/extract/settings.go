package extract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/harvest"
)

// Setting returns job's value of its source type's setting name (the source's options), white
// space around it trimmed, or, when it is not set (missing, or nothing but white space), the
// setting's default from the
// source rule table (harvest.SourceSetting.Default; "" when the setting has none, or when the
// type's row has no such setting: TestSettingNamesAreInTheRuleTable holds every name a family
// reads to the table).
func Setting(job *harvest.Job, name string) string {
	if v := strings.TrimSpace(job.Options[name]); v != "" {
		return v
	}
	if spec := harvest.SpecOf(job.SourceType); spec != nil {
		if s := spec.Setting(name); s != nil {
			return s.Default
		}
	}
	return ""
}

// PageSize reads job's page size setting name (Setting): a number from 1 to
// maxSize, or an error naming the setting and the range.
func PageSize(job *harvest.Job, name string, maxSize int) (int, error) {
	s := Setting(job, name)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxSize {
		return 0, fmt.Errorf("the source's %s option %q: want a page size from 1 to %d", name, s, maxSize)
	}
	return n, nil
}
