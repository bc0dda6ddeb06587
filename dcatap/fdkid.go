package dcatap

import "github.com/harvester-dev/harvester/harvest"

// FdkID returns FDK's fdkId for a resource IRI: Java's UUID.nameUUIDFromBytes of the IRI's UTF-8
// bytes, a name-based UUID of version 3 built from the MD5 of the bytes alone (no namespace,
// unlike RFC 4122's UUIDv3 and uuid.NewMD5, which hash a namespace first), in lower-case
// 8-4-4-4-12 form. It is harvest.FdkID, the one minting rule (the store mints once and keeps
// the id). Example: FdkID of "https://testdirektoratet.no/model/dataset/0" is
// "a1c680ca-62d7-34d5-aa4c-d39b5db033ae", the dct:identifier of its FDK catalog record.
func FdkID(iri string) string { return harvest.FdkID(iri) }
