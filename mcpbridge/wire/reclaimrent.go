package wire

import "fmt"

// ToolReclaimRent closes the wallet's empty token accounts.
const ToolReclaimRent = "reclaim_rent"

// reclaimRentTool is reclaim_rent's declaration; its registration is the
// console's reclaimrent.go.
var reclaimRentTool = Tool{
	Name: ToolReclaimRent, Title: "Close empty token accounts, reclaiming their rent (needs human approval)",
	Description: "Close the console wallet's empty token accounts (SPL Token and Token-2022) and return the SOL locked in them as rent to the wallet. Never closes an account holding tokens, a wrapped-SOL account with a balance, a frozen account, one with withheld transfer fees or confidential balances, or one whose close authority is someone else. The preview lists each account and the SOL coming back; at most " +
		fmt.Sprint(MaxReclaimAccounts) + " accounts per proposal (call again for the rest)." +
		fmt.Sprintf(approvalFlow, "5 minutes"),
	Write: true, OpenWorld: true,
	Outcomes: writeOutcomes,
	Args: []ArgSpec{
		{"confirm", KindConfirm, false, "Omit on the first call. After a human approved the proposal, the token from proposal_status (or from the human)."},
	},
	Output: writeOutput(
		OutSpec{"accounts", OutTexts, false, "The token accounts closed (or to close).", nil},
		OutSpec{"rent_lamports", OutDigits, false, "The rent the closed accounts return to the wallet.", nil},
		OutSpec{"remaining_accounts", OutInteger, false, "Empty accounts left for another call.", nil},
	),
}

// MaxReclaimAccounts bounds the accounts one reclaim_rent transaction
// closes: each close names three accounts, and a transaction holds 1232
// bytes.
const MaxReclaimAccounts = 20
