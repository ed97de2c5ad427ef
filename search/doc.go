// Package search is the one door for every read of a list: it turns what a
// caller asks of conversations or customers (a typed filter, custom-field
// filters, a saved view, a query text, a sort, a page, facets) into one
// engine request, runs it, and answers the page's ids with its total, the
// corrected queries a fruitless text search gets, and the facets asked
// for. A list without text (a report's drill-down, its ratings, the chats
// of a distribution's range) is a Listing: any kind, a filter, a sort and
// a Paging, answered by List as the page's keys with the total; search
// owns the paging rules (a page's offset, the first page for a number
// below 1). It resolves what the request names against the store (the
// company's mailboxes for custom fields, the saved view a folder names),
// so handlers, reports and workflows do not assemble searches by hand. It
// knows no HTTP: the API reads parameters and renders what it answers.
package search
