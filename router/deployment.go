package router

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// DefaultPrefix is the deployment name (--nats-prefix) of a Harvester that sets none. Its names
// on the NATS server are the ones Harvester used before deployments had names (streams
// HARVEST_WORK …, subjects harvest.v1.*, consumers harvest-<stage>, the bucket harvest-records),
// so that an upgraded deployment keeps its streams and the messages in flight.
const DefaultPrefix = "harvester"

// prefixRule is what a deployment name may be: lower-case letters, digits, '_' and '-', up to 32
// characters, starting with a letter or digit. It holds no '.', '*' or '>', so the name is one
// token of a subject, and no upper-case letter, so that a prefixed stream name (P_HARVEST_WORK)
// can equal neither a default one nor another prefix's.
var prefixRule = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// CheckPrefix returns an error saying what a deployment name may be when prefix is not one.
func CheckPrefix(prefix string) error {
	if !prefixRule.MatchString(prefix) {
		return fmt.Errorf("NATS prefix %q: want 1 to 32 lower-case letters, digits, '_' or '-', "+
			"starting with a letter or digit (e.g. %s or staging)", prefix, DefaultPrefix)
	}
	return nil
}

// names maps the code's names to one deployment's names on the NATS server. The code names
// subjects as harvest.v1.* (harvest.Subject*, harvest.MetaSubject), streams by their base names
// (StreamWork …), consumers by stage and the object store bucket RecordBucket; the router maps
// them at the edge (streams and consumers it creates, subjects it publishes to and filters on).
// With the default prefix every name is unchanged; with another prefix P, subjects are
// "P.harvest.v1.…", streams "P_HARVEST_…", consumers "P-harvest-<stage>" and the bucket
// "P-harvest-records": no name of one deployment can be another's.
type names struct {
	p string // "" for DefaultPrefix
}

// newNames returns the names of the deployment called prefix (checked by CheckPrefix; ""
// is DefaultPrefix).
func newNames(prefix string) names {
	if prefix == DefaultPrefix {
		prefix = ""
	}
	return names{p: prefix}
}

// prefix is the deployment's name.
func (n names) prefix() string {
	if n.p == "" {
		return DefaultPrefix
	}
	return n.p
}

// subject is the subject on the server of the code's subject s (harvest.v1.…, or a wildcard
// of one).
func (n names) subject(s string) string {
	if n.p == "" {
		return s
	}
	return n.p + "." + s
}

// logical is the code's subject of the server's subject s (the inverse of subject).
func (n names) logical(s string) string {
	if n.p == "" {
		return s
	}
	return strings.TrimPrefix(s, n.p+".")
}

// stream is the server's name of the stream called base in the code (StreamWork …).
func (n names) stream(base string) string {
	if n.p == "" {
		return base
	}
	return n.p + "_" + base
}

// durable is the server's name of stage's durable consumer.
func (n names) durable(stage string) string {
	if n.p == "" {
		return "harvest-" + stage
	}
	return n.p + "-harvest-" + stage
}

// bucket is the server's name of the object store bucket RecordBucket.
func (n names) bucket() string {
	if n.p == "" {
		return RecordBucket
	}
	return n.p + "-" + RecordBucket
}

// membersBucket is the server's name of the key-value bucket MembersBucket.
func (n names) membersBucket() string {
	if n.p == "" {
		return MembersBucket
	}
	return n.p + "-" + MembersBucket
}

// deployment is what every process of one deployment shares on the NATS server and must agree
// on: the names, how many servers keep each stream, and the identity of the deployment's
// database that its streams are stamped with (stamp.go).
type deployment struct {
	names
	// replicas is how many servers keep each stream, consumer and the object store bucket.
	replicas int
	// databaseID is the deployment's database identity (store.Store.DatabaseID); "" neither
	// stamps the streams nor checks their stamp.
	databaseID string
	// failedMaxAge is how long the failed stream keeps a message (WithFailedMaxAge: the
	// history's retention; 0 for ever); nil: failedKeep.
	failedMaxAge *time.Duration
}

// failedAge is how long the deployment's failed stream keeps a message.
func (d deployment) failedAge() time.Duration {
	if d.failedMaxAge == nil {
		return failedKeep
	}
	return *d.failedMaxAge
}
