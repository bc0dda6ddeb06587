package router

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// StampKey is the key of a stream's metadata (jetstream.StreamConfig.Metadata, nats-server
// 2.10 and later) that holds the identity of the database of the deployment whose stream it is
// (store.Store.DatabaseID). Two deployments with different databases must not share streams:
// each process would take the other's messages, find no such job in its database and drop
// them, and both deployments' jobs would wait until their timeout.
const StampKey = "harvester_database_id"

// ErrOtherDeployment is the error (wrapped, with a sentence naming both databases and the fix)
// of a process whose deployment's streams are stamped with another database.
var ErrOtherDeployment = errors.New("the NATS streams belong to another deployment")

// ensureStream creates stream cfg of deployment d stamped with d.databaseID, or checks the
// stamp of the stream that exists and updates it to cfg: one stamped with another database is
// refused (ErrOtherDeployment); one without a stamp (made before stamps, or by a process that
// knows no database) is adopted, stamped with d.databaseID. The stream's other metadata is kept.
// With no d.databaseID nothing is stamped or checked.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig, d deployment) error {
	s, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		cfg.Metadata = stamped(nil, d.databaseID)
		// A create, not an update: when two processes create the stream at once, the one whose
		// config differs (another database's stamp) is told so, and checks the winner's stamp.
		_, err = js.CreateStream(ctx, cfg)
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return wrapEnsure(cfg.Name, err)
		}
		s, err = js.Stream(ctx, cfg.Name)
	}
	if err != nil {
		return wrapEnsure(cfg.Name, err)
	}
	have := s.CachedInfo().Config.Metadata
	if err := checkStamp(cfg.Name, have[StampKey], d); err != nil {
		return err
	}
	cfg.Metadata = stamped(have, d.databaseID)
	_, err = js.UpdateStream(ctx, cfg)
	return wrapEnsure(cfg.Name, err)
}

func wrapEnsure(stream string, err error) error {
	if err != nil {
		return fmt.Errorf("ensure stream %s: %w", stream, err)
	}
	return nil
}

// stamped is the metadata have (a stream's) with StampKey set to databaseID when it is not ""
// and without the server's own keys (_nats.*, which it sets itself).
func stamped(have map[string]string, databaseID string) map[string]string {
	md := maps.Clone(have)
	maps.DeleteFunc(md, func(k, _ string) bool { return strings.HasPrefix(k, "_nats.") })
	if databaseID != "" {
		if md == nil {
			md = map[string]string{}
		}
		md[StampKey] = databaseID
	}
	if len(md) == 0 {
		return nil
	}
	return md
}

// checkStamp refuses stream's stamp when it names a database other than d's.
func checkStamp(stream, stamp string, d deployment) error {
	if d.databaseID == "" || stamp == "" || stamp == d.databaseID {
		return nil
	}
	return fmt.Errorf("%w: NATS stream %s is stamped with database %s, but this process's database is %s: "+
		"two deployments with different databases are using the NATS prefix %q on one NATS server; "+
		"give this deployment a prefix of its own with --nats-prefix (env HARVESTER_NATS_PREFIX), "+
		"the same on every one of its processes",
		ErrOtherDeployment, stream, stamp, d.databaseID, d.prefix())
}
