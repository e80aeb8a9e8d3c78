// pgq dashboard: the only script (shipped in the package; the CSP allows no inline script).
// Forms with data-confirm ask before they post (bulk retry, cancel).
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
