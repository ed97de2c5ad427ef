// Package search is the one door for every read of a list: it turns what a
// caller asks of conversations or customers (a typed filter, custom-field
// filters, a saved view, a query text, a sort, a page, facets) into one
// engine request, runs it, and answers the page's ids with its total, the
// corrected queries a fruitless text search gets, and the facets asked
// for. It resolves what the request names against the store (the
// company's mailboxes for custom fields, the saved view a folder names),
// so handlers, reports and workflows do not assemble searches by hand. It
// knows no HTTP: the API reads parameters and renders what it answers.
package search
