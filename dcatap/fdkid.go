package dcatap

import (
	"crypto/md5"

	"github.com/google/uuid"
)

// FdkID returns FDK's fdkId for a resource IRI: Java's UUID.nameUUIDFromBytes of the IRI's UTF-8
// bytes, a name-based UUID of version 3 built from the MD5 of the bytes alone (no namespace,
// unlike RFC 4122's UUIDv3 and uuid.NewMD5, which hash a namespace first), in lower-case
// 8-4-4-4-12 form. FDK mints it the first time it sees an IRI and keeps it after; so must the
// store (this function is only the minting rule). Example: FdkID of
// "https://testdirektoratet.no/model/dataset/0" is "a1c680ca-62d7-34d5-aa4c-d39b5db033ae",
// the dct:identifier of its FDK catalog record.
func FdkID(iri string) string {
	var u uuid.UUID = md5.Sum([]byte(iri))
	u[6] = u[6]&0x0f | 0x30 // version 3
	u[8] = u[8]&0x3f | 0x80 // IETF variant
	return u.String()
}
