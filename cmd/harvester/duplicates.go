package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/store"
)

// duplicatesDefault is how many pairs duplicates prints without --limit.
const duplicatesDefault = 100

func duplicatesCommand() *cobra.Command {
	var f storeFlags
	var source string
	var limit int
	cmd := &cobra.Command{
		Use:   "duplicates",
		Short: "List the datasets that two sources publish (cross-source duplicates)",
		Long: `List the cross-source duplicates, newest first: pairs of datasets of two sources that are the
same dataset, by identifier, landingPage or downloadURL set. The catalog keeps one of each pair
live (the kept side: its source's precedence is higher, or on a tie it was live first) and holds
the other. --source keeps the pairs with that source on either side (its id, name or URL). With
--format json it prints {"items": [...], "total": N}, each item with the fields of
GET /api/v1/cross_source_duplicates.

` + storeHelp(),
		Example: "  harvester duplicates\n  harvester duplicates --source https://agency.example.gov/data.json --format json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return usageError{fmt.Errorf("--limit: %d is not a positive number of pairs", limit)}
			}
			return f.withStore(cmd.Context(), func(st store.Store) error {
				return f.listDuplicates(cmd.Context(), cmd.OutOrStdout(), st, source, limit)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&source, "source", "", "only the pairs with this source on either side: its id, name or URL")
	cmd.Flags().IntVar(&limit, "limit", duplicatesDefault, "print at most this many pairs, the newest")
	return cmd
}

func (f *storeFlags) listDuplicates(ctx context.Context, out io.Writer, st store.Store, source string, limit int) error {
	p := store.CrossSourceDuplicateListParams{PageParams: store.PageParams{Limit: limit}}
	if source != "" {
		src, err := f.findSource(ctx, st, source)
		if err != nil {
			return fmt.Errorf("duplicates: --source: %w", err)
		}
		p.SourceID = src.ID
	}
	rows, total, err := st.CrossSourceDuplicateList(ctx, &p)
	if err != nil {
		return fmt.Errorf("duplicates: %w", err)
	}
	if f.format == "json" {
		items := make([]api.Duplicate, 0, len(rows))
		for i := range rows {
			items = append(items, api.DuplicateOf(&rows[i]))
		}
		return writeJSON(out, listJSON[api.Duplicate]{Items: items, Total: total})
	}
	if total == 0 {
		fmt.Fprintln(out, "no cross-source duplicates")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MATCH\tKEY\tKEPT (SOURCE: IDENTIFIER)\tHELD (SOURCE: IDENTIFIER)\tFIRST SEEN")
	for _, d := range rows {
		key := d.Key
		if d.Match == store.MatchDownloadURL {
			key = "sha256:" + key[:min(len(key), 12)] + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s: %s\t%s: %s\t%s\n", d.Match, key, d.Kept.SourceName, d.Kept.Identifier,
			d.Held.SourceName, d.Held.Identifier, timeText(&d.FirstSeenAt))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if total > len(rows) {
		fmt.Fprintf(out, "(the newest %d of %d pairs; --limit shows more)\n", len(rows), total)
	}
	return nil
}
