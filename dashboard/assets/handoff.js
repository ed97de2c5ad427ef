// The sign-in's last step, on the page /reports/callback answers: it holds
// the user's access token; keep it for this tab and go back to the
// dashboard, replacing this page in the history so Back never returns to it.
import { finishSignIn } from './api.js';

const handoff = document.getElementById('handoff');
location.replace(finishSignIn(handoff.dataset.token));
