package postgres

import (
	"errors"
	"io"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unreachable implements store.Reachability: err means the server cannot be reached or is not
// serving for now, and the same statement may succeed once it is back. That is a failed
// connect (*pgconn.ConnectError: refused, or the server's "not yet accepting connections"), a
// connection the server dropped (io.ErrUnexpectedEOF, ECONNRESET, EPIPE), and the server's
// SQLSTATE classes 08 (connection exception) and 57P01–57P03 (shut down by the administrator,
// crash shutdown, cannot connect now), as PostgreSQL's errcodes appendix names them.
func (s *Store) Unreachable(err error) bool { return Unreachable(err) }

// Unreachable is Store.Unreachable for any error.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNREFUSED)
}
