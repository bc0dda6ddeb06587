package harvest

import (
	"crypto/md5"

	"github.com/google/uuid"
)

// FdkID is FDK's fdkId of a resource URI (a DCAT-AP dataset or catalog IRI, or a DCAT-US
// identifier): Java's UUID.nameUUIDFromBytes(uri bytes), a name-based version 3 UUID of the
// MD5 of the UTF-8 bytes with no namespace (unlike RFC 4122's NewMD5, which prefixes one), as
// 36 lower-case characters. It is the mint function of store.ResourceIDs: an fdkId is minted
// once and then read back, so a later change here changes no stored id. dcatap.FdkID is
// this function.
func FdkID(uri string) string {
	sum := md5.Sum([]byte(uri))
	sum[6] = sum[6]&0x0f | 0x30 // version 3
	sum[8] = sum[8]&0x3f | 0x80 // RFC 4122 variant
	return uuid.UUID(sum).String()
}
