package solanaactions

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/solgate/solgate/executor"
)

// mainnetChainID is what a server that sends no X-Blockchain-Ids means:
// sRFC 31 has clients treat the header's absence as a mainnet action.
var mainnetChainID = executor.CAIP2(executor.GenesisMainnetBeta)

// SpecVersion is the Actions spec this client implements
// (@solana/actions-spec 2.4). An action that declares a newer one is
// refused, as sRFC 31 asks of clients behind the server's version.
const SpecVersion = "2.4"

// checkChain refuses an answer whose X-Blockchain-Ids does not list the
// console's cluster. Absent, the action is a mainnet one (sRFC 31), so it
// passes only on mainnet.
func checkChain(h http.Header, chain string) ([]string, error) {
	var ids []string
	for _, v := range h.Values("X-Blockchain-Ids") {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
	}
	declared := ids
	if len(ids) == 0 {
		declared = []string{mainnetChainID}
	}
	for _, id := range declared {
		if id == chain {
			return ids, nil
		}
	}
	if len(ids) == 0 {
		return nil, wrongChainf("the action's server sends no X-Blockchain-Ids header, which means a mainnet action (sRFC 31), and this console is on %s", chain)
	}
	return nil, wrongChainf("the action is for %s (X-Blockchain-Ids), and this console is on %s", clip(strings.Join(ids, ", ")), chain)
}

// checkVersion refuses an action that declares a spec version newer than
// SpecVersion. No header means a version from before the header existed.
func checkVersion(h http.Header) (string, error) {
	v := strings.TrimSpace(h.Get("X-Action-Version"))
	if v == "" {
		return "", nil
	}
	maj, min, ok := majorMinor(v)
	if !ok {
		return "", serverErrorf("X-Action-Version %q is not a version (want MAJOR.MINOR[.PATCH])", clip(v))
	}
	smaj, smin, _ := majorMinor(SpecVersion)
	if maj > smaj || maj == smaj && min > smin {
		return "", refusedf("the action uses Actions spec %s; solgate implements %s", clip(v), SpecVersion)
	}
	return v, nil
}

func majorMinor(v string) (int, int, bool) {
	parts := strings.Split(v, ".")
	if len(parts) > 3 {
		return 0, 0, false
	}
	nums := make([]int, 2)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, 0, false
		}
		if i < 2 {
			nums[i] = n
		}
	}
	return nums[0], nums[1], true
}
