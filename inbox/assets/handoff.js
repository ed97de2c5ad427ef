// The sign-in's last step, on the page /inbox/callback answers: it holds
// the agent's access token; keep it for this tab and go back where the
// agent started, replacing this page in the history so Back never returns
// to it.
import { finishSignIn } from './api.js';

const handoff = document.getElementById('handoff');
location.replace(finishSignIn(handoff.dataset.token));
