package parley_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	parley "github.com/parley/parley"
)

func TestCompanyAccessRules(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Hour), now.Add(-time.Hour)
	cases := []struct {
		company       parley.Company
		api, reports  string // expected codes, "" for allowed
		users, lights int
	}{
		{parley.Company{Plan: parley.PlanStandard, APIEnabled: true, PaymentOK: true}, "", parley.CodeAccessDenied, 25, 25},
		{parley.Company{Plan: parley.PlanPlus, APIEnabled: true, PaymentOK: true, PaidUntil: &later}, "", "", 100, 100},
		{parley.Company{Plan: parley.PlanPro, APIEnabled: true, PaymentOK: true, PaidUntil: &earlier}, parley.CodePaymentMissing, "", 500, 500},
		{parley.Company{Plan: parley.PlanPro, PaymentOK: true, UserSeats: 3, LightUserSeats: 1}, parley.CodeAPINotEnabled, "", 3, 1},
	}
	code := func(err error) string {
		if err == nil {
			return ""
		}
		return err.(*parley.Error).Errors[0].Code
	}
	for _, tc := range cases {
		assert.Equal(t, tc.api, code(tc.company.CheckAPIAccess(now)), tc.company)
		assert.Equal(t, tc.reports, code(tc.company.CanUseReports()), tc.company)
		users, lights := tc.company.Seats()
		assert.Equal(t, []int{tc.users, tc.lights}, []int{users, lights})
	}
}
