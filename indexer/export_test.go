package indexer

// SetReadSize makes s's drains read the outbox n entries at a time, so that
// a test makes a backlog with a few writes.
func (s *Syncer) SetReadSize(n int) { s.readSize = n }

// SetAfterRead makes s tell f of each chunk its drains have read and built.
func (s *Syncer) SetAfterRead(f func()) { s.afterRead = f }
