package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// X402Payment identifies one signed x402 payment on chain, stored with its
// reservation before the signed bytes leave: the facilitator, not solgate,
// submits it, and the server's word on its signature proves nothing, so
// its outcome is found by searching Source's history from FromSlot for
// Message, and it can be declared never landed only once the chain is past
// LastValidBlockHeight.
type X402Payment struct {
	ReservationID        string `json:"reservation_id"`
	Message              []byte `json:"message"`
	Source               string `json:"source"`
	LastValidBlockHeight uint64 `json:"last_valid_block_height"`
	FromSlot             uint64 `json:"from_slot"`
}

// PutX402Payment records p. A reservation has at most one payment.
func (s *Store) PutX402Payment(p X402Payment) error {
	if p.ReservationID == "" || len(p.Message) == 0 || p.Source == "" || p.LastValidBlockHeight == 0 {
		return fmt.Errorf("put x402 payment %q: the reservation, message, source and last valid block height are all required", p.ReservationID)
	}
	lastValid, err := toInt64("last_valid_block_height", p.LastValidBlockHeight)
	if err != nil {
		return fmt.Errorf("put x402 payment %s: %w", p.ReservationID, err)
	}
	from, err := toInt64("from_slot", p.FromSlot)
	if err != nil {
		return fmt.Errorf("put x402 payment %s: %w", p.ReservationID, err)
	}
	_, err = s.write("x402_payment", p.ReservationID, p, func(tx *writeTx) error {
		if _, err := s.txExec(tx, `INSERT INTO x402_payments (reservation_id, message, source, last_valid_block_height, from_slot) VALUES (?, ?, ?, ?, ?)`,
			p.ReservationID, p.Message, p.Source, lastValid, from); err != nil {
			return fmt.Errorf("put x402 payment %s: %w", p.ReservationID, err)
		}
		return nil
	})
	return err
}

// X402PaymentFor is the payment recorded for a reservation; ok is false
// when it has none (it is not an x402 payment, or nothing was signed).
func (s *Store) X402PaymentFor(id string) (p X402Payment, ok bool, err error) {
	var lastValid, from int64
	err = s.db.QueryRow(`SELECT reservation_id, message, source, last_valid_block_height, from_slot FROM x402_payments WHERE reservation_id = ?`, id).
		Scan(&p.ReservationID, &p.Message, &p.Source, &lastValid, &from)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return X402Payment{}, false, nil
	case err != nil:
		return X402Payment{}, false, fmt.Errorf("x402 payment %s: %w", id, err)
	}
	p.LastValidBlockHeight, p.FromSlot = uint64(lastValid), uint64(from)
	return p, true, nil
}
