// Package portal is EXTRACT's portal family (harvest.FamilyPortal): a portal source (ckan.go:
// CKAN package_search and DKAN 7; dkan.go: the DKAN 2 metastore; socrata.go, arcgis.go,
// opendatasoft.go) is listed by the core's pager (extract.Handler.ListPager, pager.go): the first page's total, then the
// other pages concurrently within the per-host limit, each page's items sent as records (with
// Record.SourceType set, for TRANSFORM) as soon as it arrives; a listing that falls short of
// its total fails the job and sends no Listing. A page is read an item at a time as it streams
// (portal_read.go): an item over extract.Config.MaxRecordBytes is a RecordTooLarge error row, measured,
// never held, its identifier still seen.
package portal
