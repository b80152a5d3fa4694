"""The phrase tables :mod:`aya_lab.datasets.synth` writes chats from, in the room's six languages.

Languages, in table order: English, German, French, Spanish, Swahili, Chinese (:data:`LANGS`). A task is
written once per language as the phrase a sentence frame takes: an infinitive phrase (German, French,
Spanish: "die Rechnung an X schicken"), a verb phrase (Chinese: "把发票发给X"), and for Swahili a verb
stem and its object ("tuma", "ankara kwa X"), so that "ku-" makes the infinitive and "nita-" the future.
Slots in braces (``{client}``, ``{city}``, ...) are filled from :data:`SLOTS`, with a Chinese spelling
where the Chinese text needs one. Everything here was written for this generator: no sentence of the
evaluation transcripts (``data/transcripts``) is used, and the cast and company are others.
"""

from __future__ import annotations

LANGS = ("eng", "deu", "fra", "spa", "swh", "cmn")

COMPANY = "Tembo Cargo"

# username, language, role, office
CAST = (
    ("grace", "eng", "finance", "Nairobi"), ("daniel", "eng", "it", "Nairobi"), ("chidi", "eng", "warehouse", "Lagos"),
    ("ngozi", "eng", "sales", "Lagos"), ("ravi", "eng", "procurement", "Nairobi"), ("fatima", "eng", "hr", "Nairobi"),
    ("katrin", "deu", "finance", "Bremen"), ("felix", "deu", "it", "Bremen"), ("anke", "deu", "procurement", "Bremen"),
    ("julien", "fra", "sales", "Marseille"), ("claire", "fra", "service", "Marseille"), ("yanis", "fra", "warehouse", "Marseille"),
    ("lucia", "spa", "sales", "Valencia"), ("mateo", "spa", "warehouse", "Valencia"), ("ines", "spa", "hr", "Valencia"),
    ("wanjiru", "swh", "warehouse", "Mombasa"), ("baraka", "swh", "service", "Mombasa"), ("neema", "swh", "finance", "Dar es Salaam"),
    ("juma", "swh", "it", "Dar es Salaam"), ("lihua", "cmn", "procurement", "Ningbo"), ("wei", "cmn", "sales", "Ningbo"),
    ("xiaoyu", "cmn", "service", "Ningbo"),
)  # fmt: skip

SLOTS = {
    "client": [(c, c) for c in ("Rift Foods", "Zambezi Textiles", "Atlas Paper", "Savanna Pharma", "Nile Motors")],
    "city": [
        ("Arusha", "阿鲁沙"),
        ("Kigali", "基加利"),
        ("Dodoma", "多多马"),
        ("Kampala", "坎帕拉"),
        ("Mwanza", "姆万扎"),
    ],
    "room": [(r, r) for r in ("3", "7", "12", "21")],
    "aisle": [(a, a) for a in ("B4", "C2", "D7", "F1")],
    "order": [(o, o) for o in ("PO-4471", "PO-5820", "PO-6093", "PO-7315")],
}

# role, English imperative (the gold task), de, fr, es, "sw stem|sw object", zh; then the noun phrases en..zh
TASK_PHRASES = (
    ("finance", "send the invoice to {client}", "die Rechnung an {client} schicken", "envoyer la facture à {client}",
     "enviar la factura a {client}", "tuma|ankara kwa {client}", "把发票发给{client}",
     ("the invoice for {client}", "die Rechnung für {client}", "la facture pour {client}", "la factura para {client}",
      "ankara ya {client}", "给{client}的发票")),
    ("finance", "check the payment from {client}", "die Zahlung von {client} prüfen", "vérifier le paiement de {client}",
     "comprobar el pago de {client}", "angalia|malipo ya {client}", "核对{client}的付款",
     ("the payment check for {client}", "die Zahlungsprüfung für {client}", "la vérification du paiement de {client}",
      "la comprobación del pago de {client}", "ukaguzi wa malipo ya {client}", "{client}付款的核对")),
    ("finance", "update the budget sheet", "die Budgettabelle aktualisieren", "mettre à jour le tableau du budget",
     "actualizar la hoja de presupuesto", "sasisha|jedwali la bajeti", "更新预算表",
     ("the budget sheet", "die Budgettabelle", "le tableau du budget", "la hoja de presupuesto", "jedwali la bajeti",
      "预算表")),
    ("it", "reset the printer in room {room}", "den Drucker in Raum {room} zurücksetzen",
     "réinitialiser l'imprimante de la salle {room}", "reiniciar la impresora de la sala {room}",
     "rekebisha|printa ya chumba {room}", "重置{room}号房间的打印机",
     ("the printer in room {room}", "der Drucker in Raum {room}", "l'imprimante de la salle {room}",
      "la impresora de la sala {room}", "printa ya chumba {room}", "{room}号房间的打印机")),
    ("it", "install the scanner app on the new tablets", "die Scanner-App auf den neuen Tablets installieren",
     "installer l'application de scan sur les nouvelles tablettes", "instalar la aplicación de escaneo en las tabletas nuevas",
     "weka|programu ya skana kwenye tablet mpya", "在新平板电脑上安装扫描应用",
     ("the scanner app on the new tablets", "die Scanner-App auf den neuen Tablets",
      "l'application de scan sur les nouvelles tablettes", "la aplicación de escaneo en las tabletas nuevas",
      "programu ya skana kwenye tablet mpya", "新平板电脑上的扫描应用")),
    ("it", "back up the shared drive", "das gemeinsame Laufwerk sichern", "sauvegarder le disque partagé",
     "hacer una copia de seguridad del disco compartido", "hifadhi|nakala ya diski ya pamoja", "备份共享硬盘",
     ("the backup of the shared drive", "die Sicherung des gemeinsamen Laufwerks", "la sauvegarde du disque partagé",
      "la copia de seguridad del disco compartido", "nakala ya diski ya pamoja", "共享硬盘的备份")),
    ("warehouse", "count the stock in aisle {aisle}", "den Bestand in Gang {aisle} zählen",
     "compter le stock de l'allée {aisle}", "contar el inventario del pasillo {aisle}", "hesabu|bidhaa za njia {aisle}",
     "清点{aisle}号通道的库存",
     ("the stock count in aisle {aisle}", "die Inventur in Gang {aisle}", "l'inventaire de l'allée {aisle}",
      "el inventario del pasillo {aisle}", "hesabu ya bidhaa za njia {aisle}", "{aisle}号通道的盘点")),
    ("warehouse", "load the truck for {city}", "den LKW nach {city} beladen", "charger le camion pour {city}",
     "cargar el camión para {city}", "pakia|lori la {city}", "给去{city}的卡车装货",
     ("the truck for {city}", "der LKW nach {city}", "le camion pour {city}", "el camión para {city}", "lori la {city}",
      "去{city}的卡车")),
    ("warehouse", "check the forklift brakes", "die Bremsen des Gabelstaplers prüfen",
     "vérifier les freins du chariot élévateur", "revisar los frenos de la carretilla elevadora", "angalia|breki za forklift",
     "检查叉车的刹车",
     ("the forklift brake check", "die Bremsprüfung am Gabelstapler", "la vérification des freins du chariot",
      "la revisión de los frenos de la carretilla", "ukaguzi wa breki za forklift", "叉车刹车的检查")),
    ("sales", "call {client} about the new prices", "{client} wegen der neuen Preise anrufen",
     "appeler {client} au sujet des nouveaux prix", "llamar a {client} por los precios nuevos",
     "piga simu|{client} kuhusu bei mpya", "就新价格给{client}打电话",
     ("the call to {client}", "der Anruf bei {client}", "l'appel à {client}", "la llamada a {client}", "simu kwa {client}",
      "给{client}的电话")),
    ("sales", "prepare the quote for {client}", "das Angebot für {client} vorbereiten", "préparer le devis pour {client}",
     "preparar el presupuesto para {client}", "andaa|nukuu ya bei kwa {client}", "准备给{client}的报价",
     ("the quote for {client}", "das Angebot für {client}", "le devis pour {client}", "el presupuesto para {client}",
      "nukuu ya bei kwa {client}", "给{client}的报价")),
    ("hr", "schedule the interviews for the driver job", "die Vorstellungsgespräche für die Fahrerstelle planen",
     "planifier les entretiens pour le poste de chauffeur", "programar las entrevistas para el puesto de conductor",
     "panga|mahojiano ya kazi ya dereva", "安排司机岗位的面试",
     ("the interviews for the driver job", "die Gespräche für die Fahrerstelle", "les entretiens pour le poste de chauffeur",
      "las entrevistas para el puesto de conductor", "mahojiano ya kazi ya dereva", "司机岗位的面试")),
    ("hr", "update the holiday calendar", "den Urlaubskalender aktualisieren", "mettre à jour le calendrier des congés",
     "actualizar el calendario de vacaciones", "sasisha|kalenda ya likizo", "更新假期日历",
     ("the holiday calendar", "der Urlaubskalender", "le calendrier des congés", "el calendario de vacaciones",
      "kalenda ya likizo", "假期日历")),
    ("procurement", "order more packing tape", "mehr Packband bestellen", "commander plus de ruban adhésif",
     "pedir más cinta de embalar", "agiza|utepe zaidi wa kufungia", "订购更多封箱胶带",
     ("the packing tape order", "die Packband-Bestellung", "la commande de ruban adhésif", "el pedido de cinta de embalar",
      "oda ya utepe wa kufungia", "封箱胶带的订单")),
    ("procurement", "compare the prices of the two pallet suppliers", "die Preise der beiden Palettenlieferanten vergleichen",
     "comparer les prix des deux fournisseurs de palettes", "comparar los precios de los dos proveedores de palés",
     "linganisha|bei za wasambazaji wawili wa paleti", "比较两家托盘供应商的价格",
     ("the supplier price comparison", "der Preisvergleich der Lieferanten", "la comparaison des prix des fournisseurs",
      "la comparación de precios de los proveedores", "ulinganisho wa bei za wasambazaji", "供应商价格的比较")),
    ("service", "answer the complaint from {client}", "auf die Beschwerde von {client} antworten",
     "répondre à la réclamation de {client}", "responder a la queja de {client}", "jibu|malalamiko ya {client}",
     "回复{client}的投诉",
     ("the reply to {client}", "die Antwort an {client}", "la réponse à {client}", "la respuesta a {client}",
      "jibu kwa {client}", "给{client}的回复")),
    ("service", "update the tracking page for order {order}", "die Sendungsverfolgung für Auftrag {order} aktualisieren",
     "mettre à jour le suivi de la commande {order}", "actualizar el seguimiento del pedido {order}",
     "sasisha|ukurasa wa ufuatiliaji wa oda {order}", "更新订单{order}的跟踪页面",
     ("the tracking page for order {order}", "die Sendungsverfolgung für Auftrag {order}", "le suivi de la commande {order}",
      "el seguimiento del pedido {order}", "ukurasa wa ufuatiliaji wa oda {order}", "订单{order}的跟踪页面")),
)  # fmt: skip

DATES = (
    ("by Friday", "bis Freitag", "d'ici vendredi", "antes del viernes", "kabla ya Ijumaa", "周五之前"),
    ("tomorrow", "morgen", "demain", "mañana", "kesho", "明天"),
    ("today", "heute", "aujourd'hui", "hoy", "leo", "今天"),
    ("before the end of the month", "vor Monatsende", "avant la fin du mois", "antes de fin de mes",
     "kabla ya mwisho wa mwezi", "月底之前"),
    ("on Monday morning", "am Montagmorgen", "lundi matin", "el lunes por la mañana", "Jumatatu asubuhi", "周一上午"),
    ("this afternoon", "heute Nachmittag", "cet après-midi", "esta tarde", "leo mchana", "今天下午"),
    ("next week", "nächste Woche", "la semaine prochaine", "la próxima semana", "wiki ijayo", "下周"),
    ("by Wednesday", "bis Mittwoch", "d'ici mercredi", "antes del miércoles", "kabla ya Jumatano", "周三之前"),
)  # fmt: skip

# sentence frames per kind and language; {task} infinitive (sw: {stem} {obj}), {date}, {name} the addressee
FRAMES = {
    "commit": (
        ("I'll {task} {date}.", "Leave it to me, I'll {task} {date}."),
        ("Ich werde {date} {task}.", "Ich übernehme das und werde {date} {task}."),
        ("Je vais {task} {date}.", "Je m'en charge : je vais {task} {date}."),
        ("Voy a {task} {date}.", "Yo me encargo: voy a {task} {date}."),
        ("Nita{stem} {obj} {date}.", "Niachieni mimi, nita{stem} {obj} {date}."),
        ("我会{date}{task}。", "交给我吧，我{date}{task}。"),
    ),
    "request": (
        ("{name}, can you {task} {date}?", "{name}, could you please {task} {date}?"),
        ("{name}, kannst du {date} {task}?", "{name}, könntest du bitte {date} {task}?"),
        ("{name}, tu peux {task} {date} ?", "{name}, est-ce que tu pourrais {task} {date} ?"),
        ("{name}, ¿puedes {task} {date}?", "{name}, ¿podrías {task} {date}, por favor?"),
        ("{name}, unaweza ku{stem} {obj} {date}?", "{name}, tafadhali unaweza ku{stem} {obj} {date}?"),
        ("{name}，你能{date}{task}吗？", "{name}，麻烦你{date}{task}，可以吗？"),
    ),
    "accept": (
        ("Sure, {name}, I'll take care of it.", "OK {name}, consider it done by then."),
        ("Klar, {name}, mache ich.", "Geht in Ordnung, {name}, ich kümmere mich darum."),
        ("D'accord {name}, je m'en occupe.", "Pas de souci {name}, c'est noté."),
        ("Vale, {name}, me encargo yo.", "Sin problema, {name}, lo hago."),
        ("Sawa {name}, nitafanya hivyo.", "Hakuna shida {name}, nitashughulikia."),
        ("好的{name}，我来处理。", "没问题{name}，我来负责。"),
    ),
    "group": (
        ("Everyone, please {task} {date}.",),
        ("Alle bitte {date} {task}.",),
        ("Tout le monde, merci de {task} {date}.",),
        ("Les pido a todos {task} {date}.",),
        ("Kila mtu anatakiwa ku{stem} {obj} {date}.",),
        ("请大家{date}{task}。",),
    ),
    "offer": (
        ("I could {task} {date} if nobody else has time.",),
        ("Ich könnte {date} {task}, falls sonst niemand Zeit hat.",),
        ("Je pourrais {task} {date} si personne d'autre n'a le temps.",),
        ("Podría {task} {date} si nadie más tiene tiempo.",),
        ("Ningeweza ku{stem} {obj} {date} kama hakuna mwingine mwenye muda.",),
        ("如果没人有空，我可以{date}{task}。",),
    ),
    "vague": (
        ("We should {task} at some point.",),
        ("Wir sollten irgendwann {task}.",),
        ("Il faudrait {task} un de ces jours.",),
        ("Deberíamos {task} en algún momento.",),
        ("Tunapaswa ku{stem} {obj} siku moja.",),
        ("我们找个时间{task}吧。",),
    ),
    "done": (
        ("Already done: {noun}.",),
        ("Schon erledigt: {noun}.",),
        ("C'est déjà fait : {noun}.",),
        ("Ya está hecho: {noun}.",),
        ("Tayari imekamilika: {noun}.",),
        ("已经完成了：{noun}。",),
    ),  # fmt: skip
    "thanks": (
        ("Thanks, {name}!",),
        ("Danke, {name}!",),
        ("Merci, {name} !",),
        ("¡Gracias, {name}!",),
        ("Asante, {name}!",),
        ("谢谢，{name}！",),
    ),  # fmt: skip
}

# topic: English (summary), de nominative, de "zu"+dative, fr with article, fr "de"+article, es, sw, zh
TOPICS = (
    ("the container from Durban", "der Container aus Durban", "zum Container aus Durban", "le conteneur de Durban",
     "du conteneur de Durban", "el contenedor de Durban", "kontena kutoka Durban", "从德班来的集装箱"),
    ("the new warehouse in Kisumu", "das neue Lager in Kisumu", "zum neuen Lager in Kisumu", "le nouvel entrepôt de Kisumu",
     "du nouvel entrepôt de Kisumu", "el nuevo almacén de Kisumu", "ghala jipya la Kisumu", "基苏木的新仓库"),
    ("the quarterly audit", "die Quartalsprüfung", "zur Quartalsprüfung", "l'audit trimestriel", "de l'audit trimestriel",
     "la auditoría trimestral", "ukaguzi wa robo mwaka", "季度审计"),
    ("the office move", "der Büroumzug", "zum Büroumzug", "le déménagement du bureau", "du déménagement du bureau",
     "la mudanza de la oficina", "kuhamisha ofisi", "办公室搬迁"),
    ("the visit from Atlas Paper", "der Besuch von Atlas Paper", "zum Besuch von Atlas Paper", "la visite d'Atlas Paper",
     "de la visite d'Atlas Paper", "la visita de Atlas Paper", "ziara ya Atlas Paper", "Atlas Paper的来访"),
    ("the late delivery to Arusha", "die verspätete Lieferung nach Arusha", "zur verspäteten Lieferung nach Arusha",
     "la livraison pour Arusha", "de la livraison pour Arusha", "la entrega atrasada a Arusha",
     "usafirishaji uliochelewa wa Arusha", "发往阿鲁沙的延迟交货"),
)  # fmt: skip

# info frames: (English fact for the summary or None, en, de, fr, es, sw, zh); {t} topic forms, {n} a number
INFO = (
    (None, "Any news about {t_en}?", "Gibt es Neuigkeiten {t_dezu}?", "Des nouvelles {t_frde} ?",
     "¿Hay novedades sobre {t_es}?", "Kuna habari zozote kuhusu {t_sw}?", "{t_zh}有什么新消息吗？"),
    ("everything is on track", "Quick update on {t_en}: everything is on track.", "Kurzes Update {t_dezu}: alles läuft nach Plan.",
     "Point rapide sur {t_fr} : tout se passe comme prévu.", "Actualización rápida sobre {t_es}: todo va según lo previsto.",
     "Habari fupi kuhusu {t_sw}: kila kitu kinaenda vizuri.", "{t_zh}的最新情况：一切顺利。"),
    ("it is {n_en} days behind schedule", "{T_en} is {n_en} days behind schedule.", "{T_de} liegt {n_de} Tage hinter dem Plan.",
     "{T_fr} a {n_fr} jours de retard.", "{T_es} lleva {n_es} días de retraso.",
     "Kuhusu {t_sw}: tumechelewa kwa siku {n_sw}.", "{t_zh}比计划晚了{n_zh}天。"),
    ("it will be discussed at Thursday's meeting", "{name}, let's go over this in Thursday's meeting.",
     "{name}, lass uns das im Meeting am Donnerstag besprechen.", "{name}, on en parle à la réunion de jeudi.",
     "{name}, lo vemos en la reunión del jueves.", "{name}, tutajadili hili kwenye mkutano wa Alhamisi.",
     "{name}，这个我们周四开会时再讨论。"),
)  # fmt: skip

SMALL_NUMBERS = {  # 2..5 for "days behind"
    "en": ("two", "three", "four", "five"), "de": ("zwei", "drei", "vier", "fünf"), "fr": ("deux", "trois", "quatre", "cinq"),
    "es": ("dos", "tres", "cuatro", "cinco"), "sw": ("mbili", "tatu", "nne", "tano"), "zh": ("两", "三", "四", "五"),
}  # fmt: skip

NUMBER_WORDS = {  # 2..10 for requests ("the last five messages")
    "eng": ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    "deu": ("zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn"),
    "fra": ("deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix"),
    "spa": ("dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez"),
    "swh": ("mbili", "tatu", "nne", "tano", "sita", "saba", "nane", "tisa", "kumi"),
    "cmn": ("两", "三", "四", "五", "六", "七", "八", "九", "十"),
}

# summarize requests: ({n} digits, {w} a number word) for "the last N", and for everything
REQUESTS = {
    "eng": (("recap the last {n} messages for me", "could you sum up the last {w} messages?",
             "short summary of the last {n} messages please", "which action items came up in the last {w} messages?",
             "@aya summarise the last {n} messages"),
            ("sum up the whole chat for me", "recap everything please", "summarize the entire thread", "catch me up on all of it")),
    "deu": (("fass mir die letzten {n} Nachrichten zusammen", "kurze Zusammenfassung der letzten {w} Nachrichten bitte"),
            ("fass bitte den ganzen Chat zusammen", "was wurde bisher alles besprochen? Zusammenfassung bitte")),
    "fra": (("résume-moi les {n} derniers messages", "un petit résumé des {w} derniers messages stp"),
            ("résume-moi toute la discussion", "fais-moi un résumé de tout le fil")),
    "spa": (("resúmeme los últimos {n} mensajes", "un resumen de los últimos {w} mensajes, porfa"),
            ("resúmeme todo el chat", "haz un resumen de toda la conversación, porfa")),
    "swh": (("fupisha jumbe {n} za mwisho", "nipe muhtasari wa jumbe {w} za mwisho"),
            ("fupisha mazungumzo yote", "nipe muhtasari wa kila kitu kilichosemwa")),
    "cmn": (("总结一下最近{n}条消息", "帮我概括最近{w}条消息"), ("总结一下整个聊天", "把所有消息概括一下")),
}  # fmt: skip
