package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// indexFlags are the flags of the commands that use the search index.
type indexFlags struct {
	serviceFlags
	format string
	source string
}

func (f *indexFlags) register(cmd *cobra.Command) {
	f.serviceFlags.register(cmd)
	cmd.Flags().StringVar(&f.format, "format", "text", "output: text or json")
	cmd.Flags().StringVar(&f.source, "source", "", "only this harvest source's datasets (its id)")
}

// withIndex checks the flags, opens the store and the search index, runs fn on them and closes
// both; an error is the flags', an open's or fn's.
func (f *indexFlags) withIndex(ctx context.Context, fn func(store.Store, search.Index) error) error {
	return f.withIndexOpenedBy(ctx, f.openSearch, fn)
}

// withIndexOpenedBy is withIndex with the search index opened by open.
func (f *indexFlags) withIndexOpenedBy(ctx context.Context, open func(context.Context) (search.Index, error),
	fn func(store.Store, search.Index) error) error {
	if err := f.check(); err != nil {
		return err
	}
	st, err := f.openStore(ctx)
	if err != nil {
		return err
	}
	idx, err := open(ctx)
	if err == nil {
		err = fn(st, idx)
		idx.Close()
	}
	st.Close()
	return err
}

func (f *indexFlags) check() error {
	if f.format != "text" && f.format != "json" {
		return usageError{fmt.Errorf("--format: %q is not text or json", f.format)}
	}
	if f.searchIndex == "none" {
		return usageError{errors.New("--search-index none: this command needs a search index")}
	}
	return nil
}

func searchCommand() *cobra.Command {
	var f indexFlags
	var q search.Query
	cmd := &cobra.Command{
		Use:   "search [QUERY]",
		Short: "Search the live catalog's datasets",
		Long: "Search the datasets in the search index: full text over title, description, keywords, themes,\n" +
			"publisher, organization, identifier and distribution titles, with facets by organization and\n" +
			"keyword. With --format json it prints {\"total\": N, \"hits\": [...], \"facets\": {...}}.\n\n" + servicesHelp(),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			if len(args) == 1 {
				q.Text = args[0]
			}
			q.SourceID = f.source
			if _, err := q.Normalize(); err != nil {
				return usageError{err}
			}
			idx, err := f.openSearch(cmd.Context())
			if err != nil {
				return err
			}
			defer idx.Close()
			res, err := idx.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			return printSearch(cmd.OutOrStdout(), res, q, f.format)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&q.Organization, "organization", "", "only datasets of the organization with this name (the whole name; case and accents ignored)")
	cmd.Flags().StringVar(&q.Keyword, "keyword", "", "only datasets with this keyword (the whole keyword; case and accents ignored)")
	cmd.Flags().IntVar(&q.Page, "page", 1, "page of hits, from 1")
	cmd.Flags().IntVar(&q.PerPage, "per-page", search.DefaultPerPage, fmt.Sprintf("hits per page, 1 to %d", search.MaxPerPage))
	return cmd
}

func printSearch(out io.Writer, res *search.Result, q search.Query, format string) error {
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	fmt.Fprintf(out, "%d datasets match", res.Total)
	if len(res.Hits) > 0 {
		from := (max(q.Page, 1) - 1) * max(q.PerPage, 1)
		fmt.Fprintf(out, " (showing %d–%d)", from+1, from+len(res.Hits))
	}
	fmt.Fprintln(out)
	for _, h := range res.Hits {
		fmt.Fprintf(out, "  %s\n    id %s  identifier %s", h.Title, h.ID, h.Identifier)
		if h.Organization != "" {
			fmt.Fprintf(out, "  organization %s", h.Organization)
		}
		fmt.Fprintln(out)
	}
	for _, name := range []string{"organization", "keyword"} {
		if len(res.Facets[name]) == 0 {
			continue
		}
		var parts []string
		for _, fc := range res.Facets[name] {
			parts = append(parts, fmt.Sprintf("%s (%d)", fc.Value, fc.Count))
		}
		fmt.Fprintf(out, "%s: %s\n", name, strings.Join(parts, ", "))
	}
	return nil
}

func reindexCommand() *cobra.Command {
	var f indexFlags
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the search index from the dataset table",
		Long: "Rebuild the search index from the dataset table. Without --source it fills a new index and\n" +
			"swaps it in (an alias swap on OpenSearch), so searches keep working meanwhile; datasets synced\n" +
			"during the rebuild may be missing from the new index: run reconcile --fix after. The new index\n" +
			"has this version's mapping and, on OpenSearch, the alias ends on it alone as its write index, so\n" +
			"it repairs an index made by an older version and an alias that other commands refuse. With\n" +
			"--source it rewrites that source's documents in place.\n\n" + servicesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			open := f.openSearch
			if f.source == "" { // a whole new index: it repairs an alias that Open refuses
				open = f.openSearchToRebuild
			}
			return f.withIndexOpenedBy(cmd.Context(), open, func(st store.Store, idx search.Index) error {
				n, err := search.Reindex(cmd.Context(), st, idx, f.source)
				if err != nil {
					return err
				}
				if f.format == "json" {
					return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]int{"documents": n})
				}
				fmt.Fprintf(cmd.OutOrStdout(), "reindexed %d datasets\n", n)
				return nil
			})
		},
	}
	f.register(cmd)
	return cmd
}

// errIndexDiffers is reconcile's exit (status 1) when it found differences and did not fix them.
var errIndexDiffers = errors.New("the search index and the dataset table differ: run reconcile --fix to repair")

func reconcileCommand() *cobra.Command {
	var f indexFlags
	var fix bool
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Compare the search index with the dataset table, and repair it with --fix",
		Long: "Compare the search index with the dataset table: datasets with no document, documents of an\n" +
			"older harvest record, and documents with no dataset. With --fix it writes the missing and stale\n" +
			"documents and deletes the orphaned ones. Exits 1 when differences remain.\n\n" + servicesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var r *search.ReconcileReport
			if err := f.withIndex(cmd.Context(), func(st store.Store, idx search.Index) (err error) {
				r, err = search.Reconcile(cmd.Context(), st, idx, f.source, fix)
				return err
			}); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.format == "json" {
				if err := json.NewEncoder(out).Encode(r); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "%d datasets, %d documents: %d missing, %d stale, %d orphaned\n",
					r.Datasets, r.Documents, len(r.Missing), len(r.Stale), len(r.Orphaned))
				for _, l := range []struct {
					name string
					ids  []string
				}{{"missing", r.Missing}, {"stale", r.Stale}, {"orphaned", r.Orphaned}} {
					for _, id := range l.ids {
						fmt.Fprintf(out, "  %s %s\n", l.name, id)
					}
				}
				if fix && !r.Clean() {
					fmt.Fprintln(out, "repaired")
				}
			}
			if !fix && !r.Clean() {
				return errIndexDiffers
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&fix, "fix", false, "write missing and stale documents and delete orphaned ones")
	return cmd
}
