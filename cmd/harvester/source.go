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

func sourceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "source",
		Short: "Look at harvest sources",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(sourceListCommand(), sourceTypesCommand())
	return cmd
}

func sourceListCommand() *cobra.Command {
	var f storeFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the harvest sources with their last job",
		Long: `List every harvest source, by name: its type, URL, and the status and start time of its
newest job. With --format json it prints {"items": [...], "total": N}, each item with the fields
of GET /api/v1/harvest_sources/{id}.

` + storeHelp(),
		Example: "  harvester source list\n  harvester source list --format json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.withStore(cmd.Context(), func(st store.Store) error {
				return listSources(cmd.Context(), cmd.OutOrStdout(), st, f.format)
			})
		},
	}
	f.register(cmd)
	return cmd
}

func listSources(ctx context.Context, out io.Writer, st store.Store, format string) error {
	var srcs []*store.Source
	if err := eachSource(ctx, st, func(src *store.Source) { srcs = append(srcs, src) }); err != nil {
		return err
	}
	if format == "json" {
		items := make([]api.Source, 0, len(srcs))
		for _, src := range srcs {
			items = append(items, api.SourceOf(src))
		}
		return writeJSON(out, listJSON[api.Source]{Items: items, Total: len(items)})
	}
	if len(srcs) == 0 {
		fmt.Fprintln(out, "no harvest sources")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tURL\tLAST JOB\tSTARTED")
	for _, src := range srcs {
		jobs, _, err := st.JobList(ctx, &store.JobListParams{SourceID: src.ID, PageParams: store.PageParams{Limit: 1}})
		if err != nil {
			return fmt.Errorf("list jobs of source %s: %w", src.ID, err)
		}
		status, started := "-", "-"
		if len(jobs) == 1 {
			status, started = string(jobs[0].Status), timeText(&jobs[0].CreatedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", src.Name, src.SourceType, src.URL, status, started)
	}
	return tw.Flush()
}
