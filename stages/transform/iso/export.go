package iso

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// The helpers the other XML mappers (packages fgdc and dublincore) share with this one, so
// that every XML record is decoded, and its links read, by the same rules.

// ToUTF8 returns an XML document as UTF-8 according to its declared encoding (UTF-8 when it
// declares none; ISO-8859-1, Windows-1252 and ASCII are decoded; one that starts with a
// UTF-16 byte order mark is decoded from UTF-16), after trimming a UTF-8 BOM and white space
// before the XML declaration, and the number of bytes trimmed. A document declared
// ISO-8859-1 or Windows-1252 whose bytes are multi-byte UTF-8 is read as UTF-8
// (CharsetWarning gives the warning to report). The error
// wraps ErrEncoding and gives the offset of the first bad byte in b.
func ToUTF8(b []byte) (doc []byte, trimmed int, err error) { return toUTF8(b) }

// CleanURL returns s as an absolute http(s), ftp(s), sftp, s3 or gs URL, prefixing https://
// when that makes a scheme-less address with a dotted host valid (as Data.gov does) and
// percent-encoding what RFC 3986 does not allow as written (a space, a non-ASCII character as
// its UTF-8 bytes; escapeURL); ok is false for anything else (a relative path, a mail address, text).
func CleanURL(s string) (u string, ok bool) { return cleanURL(s) }

// GuessMediaType guesses the media type of a link from its file extension and query (OGC
// service requests are application/xml, pages text/html) and reports whether it names a
// file (a DCAT-US downloadURL) rather than a page or service (an accessURL). protocol is
// the link's protocol as the record gives it ("" when none).
func GuessMediaType(rawURL, protocol string) (mediaType string, isFile bool) {
	return guessMediaType(rawURL, protocol)
}

// Distribution returns the DCAT-US distribution of a link at u (a URL CleanURL returned) with
// the link's protocol ("" when none): u as its downloadURL when GuessMediaType calls it a
// file, else as its accessURL, and the media type guessed.
func Distribution(u, protocol string) dcatus.Distribution {
	d := dcatus.Distribution{Type: dcatus.TypeDistribution}
	mt, isFile := guessMediaType(u, protocol)
	if isFile {
		d.DownloadURL = u
	} else {
		d.AccessURL = u
	}
	d.MediaType = mt
	return d
}

// LanguageCode returns the ISO 639-1 code of an ISO 639-2 code (B or T) or English name of a
// common language, lower case ("eng", "english" → "en"), and whether it knows it: the one
// table the ISO and Dublin Core mappers read language values by.
func LanguageCode(s string) (string, bool) { c, ok := languages[s]; return c, ok }

// IsLetters reports whether s holds only ASCII letters.
func IsLetters(s string) bool { return isAlpha(s) }

// emailAddress matches an e-mail address in an e-mail field's text.
var emailAddress = regexp.MustCompile(`[\w.~!$&'*+=-]+@[\w-]+(\.[\w-]+)+`)

// EmailAddress returns the e-mail address an e-mail field's value holds (ISO's
// gmd:electronicMailAddress, FGDC's cntemail): its first one, lower-cased, with "mailto:" and
// any text around it dropped ("mailto:Data@Agency.gov (data team)" → "data@agency.gov"), and
// whether it holds one. A web address ("http://www.usgs.gov/ask/"), a name or "Not provided"
// holds none: the ISO and FGDC mappers skip such a value with the warning SkippedEmail gives
// and take the next contact's address, else the placeholder, so the record still validates.
func EmailAddress(s string) (string, bool) {
	addr := emailAddress.FindString(strings.TrimPrefix(strings.TrimSpace(s), "mailto:"))
	return strings.ToLower(addr), addr != ""
}

// SkippedEmail is the warning message (field contactPoint) for an e-mail field whose value v
// holds no e-mail address (EmailAddress), v quoted and cut to 200 characters.
func SkippedEmail(v string) string {
	v, _ = dcatus.Shorten(strings.Join(strings.Fields(v), " "), 200)
	return fmt.Sprintf("the e-mail field %q holds no e-mail address (a web address or text?); skipped", v)
}
