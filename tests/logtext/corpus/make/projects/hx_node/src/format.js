function money(value, currency) {
    return new Intl.NumberFormat('de-DE', {style: 'currency', currency: currency}).format(value)
}
module.exports = {money}
