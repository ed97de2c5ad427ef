package pgstore

// Writes run REPEATABLE READ (see DB.Update): two writes of one row
// cannot both commit, the second runs again and sees the first, but two
// writes that each read a set of rows and insert a new one can. A rule
// that decides on such a set (a mailbox name unique in its company
// without case, say) calls LockRule first, which writes the rule's row of
// rule_locks: of two writes checking the rule at once, the second to
// write the row waits for the first, then fails with a serialization
// failure and runs again on a snapshot holding the first's records.
var sqlLockRule = stmt(`INSERT INTO rule_locks (company_id, rule, taken) VALUES ($1, $2, 1)
ON CONFLICT (company_id, rule) DO UPDATE SET taken = rule_locks.taken + 1`)

// LockRule makes the writes that check one rule of a company run as if
// one after the other (parley.RuleLocks). A write takes each lock once,
// however many of its records check the rule (an import's 500 given ids).
func (t *Tx) LockRule(companyID int64, rule string) error {
	k := ruleLock{companyID, rule}
	if t.ruleLocks[k] {
		return t.failed
	}
	if t.ruleLocks == nil {
		t.ruleLocks = map[ruleLock]bool{}
	}
	t.ruleLocks[k] = true
	return t.exec(sqlLockRule, companyID, rule)
}

// ruleLock names a rule lock a write holds.
type ruleLock struct {
	company int64
	rule    string
}
