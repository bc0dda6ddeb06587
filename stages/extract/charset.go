package extract

import (
	"os"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
)

// decodeCharset returns a downloaded document ready to read: a JSON catalog as UTF-8
// (fetch.ToUTF8, within the fetch size cap), an ISO 19115 or FGDC XML document as it is (its own encoding
// declaration governs).
func (h *Handler) decodeCharset(doc *fetch.Document, job *harvest.Job) (*os.File, error) {
	if job.SchemaType.IsXML() {
		return doc.File, nil
	}
	return fetch.ToUTF8(doc, h.fetch.MaxBytes)
}
