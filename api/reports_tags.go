package api

import (
	"context"

	parley "github.com/parley/parley"
	"github.com/parley/parley/reports"
)

// companyTags loads a company's tags: a report's filterTags.
func (s *Server) companyTags(ctx context.Context, company int64) ([]parley.Tag, error) {
	var tags []parley.Tag
	err := s.store.View(ctx, func(tx parley.Tx) (err error) {
		tags, err = tx.Tags(company)
		return err
	})
	return tags, err
}

// withTags hands a report that lists the company's tags (filterTags) to
// reportOf: it loads them for the request's company.
func withTags[T any](s *Server, compute func(context.Context, reports.Engine, reports.Request, []parley.Tag) (T, error)) func(context.Context, reports.Engine, reports.Request) (T, error) {
	return func(ctx context.Context, e reports.Engine, r reports.Request) (T, error) {
		tags, err := s.companyTags(ctx, r.Company)
		if err != nil {
			var none T
			return none, err
		}
		return compute(ctx, e, r, tags)
	}
}

// withSubjectTags is withTags for userReportOf.
func withSubjectTags[T any](s *Server, compute func(context.Context, reports.Engine, reports.Request, reports.Subject, []parley.Tag) (T, error)) func(context.Context, reports.Engine, reports.Request, reports.Subject) (T, error) {
	return func(ctx context.Context, e reports.Engine, r reports.Request, subject reports.Subject) (T, error) {
		return withTags(s, func(ctx context.Context, e reports.Engine, r reports.Request, tags []parley.Tag) (T, error) {
			return compute(ctx, e, r, subject, tags)
		})(ctx, e, r)
	}
}
